#!/usr/bin/env python3
"""Adapts the Thrift 0.17 compiler's Java output to the libthrift the shim ships (0.22.0,
relocated to org.apache.storm.thrift like Storm's storm-shaded-deps).

Between 0.17 and 0.22 libthrift's ProcessFunction/AsyncProcessFunction gained a result type
parameter (with getEmptyResultInstance()) and made isOneway() public; structs, unions and the
client halves are unchanged. Usage: postprocess.py <generated java dir>.
"""
import pathlib
import re
import sys

ANY_TBASE = "? extends org.apache.thrift.TBase"


def fix(text: str) -> str:
    text = text.replace("protected boolean isOneway()", "public boolean isOneway()")
    text = re.sub(r"\?\s+extends\s+org\.apache\.thrift\.TBase", ANY_TBASE, text)
    # Processor maps: ProcessFunction<I, ? extends TBase> -> <I, ? extends TBase, ? extends TBase>.
    text = text.replace(
        "org.apache.thrift.ProcessFunction<I, %s>" % ANY_TBASE,
        "org.apache.thrift.ProcessFunction<I, %s, %s>" % (ANY_TBASE, ANY_TBASE),
    )
    text = re.sub(r"(AsyncProcessFunction<I, \? extends org\.apache\.thrift\.TBase),\s*\?>", r"\1, ?>", text)
    text = text.replace(
        "org.apache.thrift.AsyncProcessFunction<I, %s, ?>" % ANY_TBASE,
        "org.apache.thrift.AsyncProcessFunction<I, %s, ?, %s>" % (ANY_TBASE, ANY_TBASE),
    )
    text = re.sub(
        r"extends org\.apache\.thrift\.ProcessFunction<I, (\w+)_args> \{",
        r"extends org.apache.thrift.ProcessFunction<I, \1_args, \1_result> {",
        text,
    )
    text = re.sub(
        r"extends org\.apache\.thrift\.AsyncProcessFunction<I, (\w+)_args, (.*)> \{$",
        r"extends org.apache.thrift.AsyncProcessFunction<I, \1_args, \2, \1_result> {",
        text,
        flags=re.M,
    )
    # Every process function (sync and async) gets the result factory after the args one.
    text = re.sub(
        r"(\n(\s*)public (\w+)_args getEmptyArgsInstance\(\) \{\n\s*return new \w+_args\(\);\n\s*\}\n)",
        lambda m: m.group(1)
        + "\n%s@Override\n%spublic %s_result getEmptyResultInstance() {\n%s  return new %s_result();\n%s}\n"
        % (m.group(2), m.group(2), m.group(3), m.group(2), m.group(3), m.group(2)),
        text,
    )
    return text.replace("org.apache.thrift.", "org.apache.storm.thrift.")


# Egret-only addition: Nimbus.Client over the local cluster, so that callers holding a
# dev.egret.client.nimbus.LocalNimbus (NimbusClient, LocalCluster) get a genuine Thrift client
# whose calls are encoded and served in this JVM.
NIMBUS_CLIENT_CTOR = """    public Client(org.apache.storm.thrift.protocol.TProtocol iprot, org.apache.storm.thrift.protocol.TProtocol oprot) {
      super(iprot, oprot);
    }
"""
EGRET_CTOR = """
    /** Egret: a client of the local cluster's Nimbus (see dev.egret.client.nimbus.LocalNimbus#protocol()). */
    public Client(dev.egret.client.nimbus.LocalNimbus nimbus) {
      this(nimbus.protocol());
    }
"""


# Egret-only addition: Storm's Thrift exceptions carry their text in the msg field and return
# null from getMessage(); Egret's clients and logs show getMessage(), so it returns msg.
EXCEPTION_GET_MESSAGE = """
  /** Egret: the exception's message is its msg field (Thrift leaves Throwable's empty). */
  @Override
  public java.lang.String getMessage() {
    return msg;
  }
"""


def add_get_message(text: str) -> str:
    if "extends org.apache.storm.thrift.TException implements" not in text or " java.lang.String msg;" not in text:
        return text
    end = text.rstrip().rfind("}")
    return text[:end] + EXCEPTION_GET_MESSAGE + text[end:]


def synchronize_nimbus_calls(text: str) -> str:
    """Egret-only: Nimbus.Client's whole calls (send_ then recv_) are synchronized, so one client
    may be shared by threads (Egret's LocalCluster and NimbusClient share one, as they did
    before the client spoke Thrift); the separate send_/recv_ halves stay unsynchronized."""
    start = text.index("  public static class Client extends org.apache.storm.thrift.TServiceClient implements Iface {")
    end = text.index("  public static class AsyncClient", start)
    section = re.sub(
        r"^    public (?!static |Client\(|void send_|\S+ recv_|\S+<.*> recv_)",
        "    public synchronized ",
        text[start:end],
        flags=re.M,
    )
    return text[:start] + section + text[end:]


def main() -> None:
    for path in pathlib.Path(sys.argv[1]).rglob("*.java"):
        text = add_get_message(fix(path.read_text(encoding="utf-8")))
        if path.name == "Nimbus.java":
            if NIMBUS_CLIENT_CTOR not in text:
                raise SystemExit("Nimbus.Client's (TProtocol, TProtocol) constructor not found")
            text = text.replace(NIMBUS_CLIENT_CTOR, NIMBUS_CLIENT_CTOR + EGRET_CTOR, 1)
            text = synchronize_nimbus_calls(text)
        path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
