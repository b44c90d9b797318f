package io.github.llmthrottle.retry;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.ClosedByInterruptException;

/**
 * The one rule, for every adapter, that tells a caller's cancellation from the provider's
 * failure when an exchange ends with an I/O error. A cancellation (the caller gave up) is
 * neither a failure for the circuit nor a capacity signal, and is never retried; a
 * timeout (the provider did not answer in time) is all three, like any other I/O error.
 * <p>
 * The signals, in order:
 * <ol>
 * <li>The thread's interrupt flag is set, or a channel was closed by an interrupt: a
 * cancellation, whatever the exception (OkHttp reports an interrupted read as a
 * {@link SocketTimeoutException}).</li>
 * <li>A read or connect timeout ({@link SocketTimeoutException}, the JDK client's
 * {@link HttpTimeoutException}) or OkHttp's call timeout (a plain
 * {@link InterruptedIOException} whose message is {@code timeout}, the thread not
 * interrupted): a timeout.</li>
 * <li>Any other {@link InterruptedIOException}, or OkHttp's
 * {@code IOException("Canceled")} after {@code Call.cancel()}: a cancellation.</li>
 * <li>Anything else: the provider's failure.</li>
 * </ol>
 * An adapter whose HTTP library reports both a timeout and a cancellation in the same way
 * (an OkHttp interceptor sees the same exception after either, since a call timeout
 * cancels the call) tells them apart with what it knows and reports
 * {@link #timedOut(IOException)} or {@link #cancelled(IOException)}, which this rule
 * reads as such.
 */
public final class Cancellation {

    /** OkHttp's message for a call cut by its call timeout. */
    private static final String CALL_TIMEOUT = "timeout";

    /** OkHttp's message for a call cancelled with {@code Call.cancel()}. */
    private static final String CANCELED = "Canceled";

    private Cancellation() {
    }

    /**
     * Whether an I/O error of an exchange is the caller's cancellation rather than the
     * provider's failure. Called on the thread that ran the exchange, right after it
     * failed, so that the interrupt flag is the exchange's.
     * @param failure the exception
     * @return {@code true} for a cancellation
     */
    public static boolean isCancellation(IOException failure) {
        if (Thread.currentThread().isInterrupted() || failure instanceof ClosedByInterruptException) {
            return true;
        }
        if (isTimeout(failure)) {
            return false;
        }
        return failure instanceof InterruptedIOException
                || (failure.getClass() == IOException.class && CANCELED.equals(failure.getMessage()));
    }

    /**
     * Whether an I/O error is a timeout: a read or connect timeout, or OkHttp's call
     * timeout. An interrupted thread's I/O error is a cancellation even when it looks
     * like a timeout; {@link #isCancellation} checks that first.
     * @param failure the exception
     * @return {@code true} for a timeout
     */
    public static boolean isTimeout(IOException failure) {
        return failure instanceof SocketTimeoutException || failure instanceof HttpTimeoutException
                || (failure.getClass() == InterruptedIOException.class && CALL_TIMEOUT.equals(failure.getMessage()));
    }

    /**
     * The I/O error an adapter reports when the HTTP library's own timeout on the call
     * cut the exchange: what OkHttp reports to the caller of {@code Call.execute()}.
     * @param cause what the HTTP library threw
     * @return the exception to throw, read as a timeout
     */
    public static InterruptedIOException timedOut(IOException cause) {
        InterruptedIOException timedOut = new InterruptedIOException(CALL_TIMEOUT);
        timedOut.initCause(cause);
        return timedOut;
    }

    /**
     * The I/O error an adapter reports when its caller cancelled the exchange: what
     * OkHttp reports after {@code Call.cancel()}.
     * @param cause what the HTTP library threw
     * @return the exception to throw, read as a cancellation
     */
    public static IOException cancelled(IOException cause) {
        return new IOException(CANCELED, cause);
    }

}
