package dev.egret.client.nimbus;

import java.util.Map;
import org.apache.storm.thrift.ProcessFunction;
import org.apache.storm.thrift.TApplicationException;
import org.apache.storm.thrift.TBase;
import org.apache.storm.thrift.TBaseProcessor;
import org.apache.storm.thrift.TException;
import org.apache.storm.thrift.TProcessor;
import org.apache.storm.thrift.protocol.TMessage;
import org.apache.storm.thrift.protocol.TMessageType;
import org.apache.storm.thrift.protocol.TProtocol;
import org.apache.storm.thrift.protocol.TProtocolUtil;
import org.apache.storm.thrift.protocol.TType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thrift's server-side dispatch of a generated processor (read the call, run the handler,
 * write the reply or the exception), for the in-JVM Nimbus. It differs from libthrift's
 * {@code ProcessFunction.process} in two ways that suit a server living in the caller's JVM:
 * a failure is logged at debug, not as a server ERROR with a stack trace in the user's log
 * (the caller gets it as an exception anyway), and an undeclared failure keeps its message in
 * the {@link TApplicationException} the caller receives.
 */
final class QuietProcessor<I> implements TProcessor {
    private static final Logger LOG = LoggerFactory.getLogger(QuietProcessor.class);

    private final I handler;
    private final Map<String, ProcessFunction<I, ? extends TBase, ? extends TBase>> functions;

    QuietProcessor(I handler, TBaseProcessor<I> processor) {
        this.handler = handler;
        this.functions = processor.getProcessMapView();
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public void process(TProtocol in, TProtocol out) throws TException {
        TMessage msg = in.readMessageBegin();
        ProcessFunction fn = functions.get(msg.name);
        if (fn == null) {
            TProtocolUtil.skip(in, TType.STRUCT);
            in.readMessageEnd();
            reply(out, msg, new TApplicationException(TApplicationException.UNKNOWN_METHOD,
                    "Invalid method name: '" + msg.name + "'"));
            return;
        }
        TBase args = fn.getEmptyArgsInstance();
        try {
            args.read(in);
        } catch (TException e) {
            in.readMessageEnd();
            reply(out, msg, new TApplicationException(TApplicationException.PROTOCOL_ERROR, e.getMessage()));
            return;
        }
        in.readMessageEnd();
        TBase result;
        try {
            result = fn.getResult(handler, args);
        } catch (TApplicationException e) {
            LOG.debug("method={} Nimbus call failed.", msg.name, e);
            reply(out, msg, e);
            return;
        } catch (Exception e) {
            LOG.debug("method={} Nimbus call failed.", msg.name, e);
            reply(out, msg, new TApplicationException(TApplicationException.INTERNAL_ERROR,
                    "Internal error processing " + msg.name + ": " + e.getMessage()));
            return;
        }
        if (fn.isOneway()) {
            return;
        }
        out.writeMessageBegin(new TMessage(msg.name, TMessageType.REPLY, msg.seqid));
        result.write(out);
        out.writeMessageEnd();
        out.getTransport().flush();
    }

    private static void reply(TProtocol out, TMessage call, TApplicationException e) throws TException {
        out.writeMessageBegin(new TMessage(call.name, TMessageType.EXCEPTION, call.seqid));
        e.write(out);
        out.writeMessageEnd();
        out.getTransport().flush();
    }
}
