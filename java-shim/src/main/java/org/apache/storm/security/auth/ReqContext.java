package org.apache.storm.security.auth;

import java.net.InetAddress;
import java.security.AccessControlContext;
import java.security.AccessController;
import java.security.Principal;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import javax.security.auth.Subject;

/**
 * The context of the request being served on this thread: who asked (a {@link Subject}), from
 * where, and whether on someone else's behalf. Storm's daemons fill it from their Thrift
 * transports; Egret runs no authenticated Storm daemons, so a thread's context starts with the
 * subject of the calling code's access-control context (usually none) and stays as code sets it.
 */
public class ReqContext {
    private static final AtomicInteger UNIQUE_ID = new AtomicInteger(0);
    private static final ThreadLocal<ReqContext> CONTEXT = ThreadLocal.withInitial(ReqContext::new);

    private Subject subject;
    private InetAddress remoteAddr;
    private Principal realPrincipal;
    private final int reqId;

    /** A context with the subject of the current access-control context, if any. */
    @SuppressWarnings("removal")
    public ReqContext() {
        this(currentSubject());
    }

    public ReqContext(Subject sub) {
        this.subject = sub;
        this.reqId = UNIQUE_ID.incrementAndGet();
    }

    /** A copy of {@code other}'s subject, address and real principal, with a new request id. */
    public ReqContext(ReqContext other) {
        this(other.subject);
        this.remoteAddr = other.remoteAddr;
        this.realPrincipal = other.realPrincipal;
    }

    /** This thread's context. */
    public static ReqContext context() {
        return CONTEXT.get();
    }

    /** Drops this thread's context; the next {@link #context()} starts a new one. */
    public static void reset() {
        CONTEXT.remove();
    }

    /** The subject of the calling code's access-control context, or null. */
    @SuppressWarnings("removal")
    public static Subject currentSubject() {
        try {
            AccessControlContext acc = AccessController.getContext();
            return Subject.getSubject(acc);
        } catch (UnsupportedOperationException | SecurityException e) {
            return null;
        }
    }

    public void setRemoteAddress(InetAddress addr) {
        this.remoteAddr = addr;
    }

    public InetAddress remoteAddress() {
        return remoteAddr;
    }

    public void setSubject(Subject subject) {
        this.subject = subject;
    }

    public Subject subject() {
        return subject;
    }

    /** The subject's first principal, or null. */
    public Principal principal() {
        if (subject == null) {
            return null;
        }
        Set<Principal> principals = subject.getPrincipals();
        return principals.isEmpty() ? null : principals.iterator().next();
    }

    public void setRealPrincipal(Principal realPrincipal) {
        this.realPrincipal = realPrincipal;
    }

    public Principal realPrincipal() {
        return realPrincipal;
    }

    /** Whether the request acts for another principal than the one that made it. */
    public boolean isImpersonating() {
        return realPrincipal != null && !realPrincipal.equals(principal());
    }

    public int requestID() {
        return reqId;
    }

    @Override
    public String toString() {
        return "ReqContext{realPrincipal=" + (realPrincipal == null ? null : realPrincipal.getName())
                + ", reqID=" + reqId + ", remoteAddr=" + remoteAddr + ", authZPrincipal="
                + (principal() == null ? null : principal().getName()) + ", ThreadId=" + Thread.currentThread() + "}";
    }
}
