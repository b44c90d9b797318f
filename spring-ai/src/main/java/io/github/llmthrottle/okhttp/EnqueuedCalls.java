package io.github.llmthrottle.okhttp;

import java.lang.StackWalker.StackFrame;

/**
 * Tells an enqueued call ({@code Call.enqueue}) from an executed one
 * ({@code Call.execute}) inside an interceptor, from the OkHttp code that runs the
 * interceptor chain on this thread: OkHttp 4 and 5 start the chain of an executed call in
 * {@code RealCall.execute} and that of an enqueued call in
 * {@code RealCall.AsyncCall.run}, whatever thread, executor or thread name runs it. The
 * nearest of the two frames is the chain's own, so a call executed from an enqueued
 * call's callback counts as executed.
 */
final class EnqueuedCalls {

    private static final String REAL_CALL = "okhttp3.internal.connection.RealCall";

    private static final String ASYNC_CALL = REAL_CALL + "$AsyncCall";

    private static final StackWalker walker = StackWalker.getInstance();

    private EnqueuedCalls() {
    }

    /**
     * Whether the interceptor chain running on this thread is that of an enqueued call.
     * @return {@code true} when it is; {@code false} when it is an executed call's, or
     * not OkHttp's own
     */
    static boolean isCurrent() {
        return walker.walk((frames) -> frames.filter(EnqueuedCalls::startsAChain)
            .findFirst()
            .map((frame) -> frame.getClassName().equals(ASYNC_CALL))
            .orElse(false));
    }

    private static boolean startsAChain(StackFrame frame) {
        String type = frame.getClassName();
        String method = frame.getMethodName();
        return (type.equals(ASYNC_CALL) && method.equals("run"))
                || (type.equals(REAL_CALL) && method.equals("execute"));
    }

}
