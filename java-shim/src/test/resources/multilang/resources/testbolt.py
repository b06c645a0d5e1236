# A multilang bolt for Egret's ShellBolt tests, written against the protocol alone:
# JSON messages each followed by a line "end". The first field of each tuple says what to do.
import json
import os
import sys


def read_msg():
    lines = []
    while True:
        line = sys.stdin.readline()
        if not line:
            sys.exit(0)
        line = line.rstrip("\n")
        if line == "end":
            return json.loads("\n".join(lines))
        lines.append(line)


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\nend\n")
    sys.stdout.flush()


pending_tuples = []


def read_task_ids():
    while True:
        msg = read_msg()
        if isinstance(msg, list):
            return msg
        pending_tuples.append(msg)


def next_tuple():
    if pending_tuples:
        return pending_tuples.pop(0)
    while True:
        msg = read_msg()
        if not isinstance(msg, list):
            return msg


setup = read_msg()
open(os.path.join(setup["pidDir"], str(os.getpid())), "w").close()
send({"pid": os.getpid()})
ctx = setup["context"]
ignore_heartbeats = os.environ.get("IGNORE_HEARTBEATS") == "1"

while True:
    t = next_tuple()
    if t["task"] == -1 and t["stream"] == "__heartbeat":
        if not ignore_heartbeats:
            send({"command": "sync"})
        continue
    values = t["tuple"]
    cmd = values[0]
    if cmd == "split":
        for word in values[1].split(" "):
            send({"command": "emit", "anchors": [t["id"]], "tuple": [word]})
            read_task_ids()
        send({"command": "ack", "id": t["id"]})
    elif cmd == "context":
        send({"command": "emit", "anchors": [t["id"]], "need_task_ids": False,
              "tuple": [ctx["componentid"], ctx["taskid"], setup["conf"].get("egret.test.key"), os.getcwd()]})
        send({"command": "ack", "id": t["id"]})
    elif cmd == "taskids":
        send({"command": "emit", "tuple": ["x"]})
        ids = read_task_ids()
        send({"command": "emit", "stream": "other", "need_task_ids": False, "tuple": [ids]})
        send({"command": "ack", "id": t["id"]})
    elif cmd == "direct":
        send({"command": "emit", "stream": "direct", "task": values[1], "anchors": [t["id"]], "tuple": ["d"]})
        send({"command": "ack", "id": t["id"]})
    elif cmd == "fail":
        send({"command": "fail", "id": t["id"]})
    elif cmd == "log":
        send({"command": "log", "msg": "hello from the subprocess", "level": 3})
        send({"command": "ack", "id": t["id"]})
    elif cmd == "error":
        send({"command": "error", "msg": "something broke in python"})
        send({"command": "ack", "id": t["id"]})
    elif cmd == "die":
        sys.stderr.write("fatal: giving up on purpose\n")
        sys.stderr.flush()
        sys.exit(3)
    elif cmd == "badjson":
        sys.stdout.write("{this is not json\nend\n")
        sys.stdout.flush()
    elif cmd == "hang":
        ignore_heartbeats = True
