package io.github.llmthrottle.retry;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.random.RandomGenerator;

import io.github.llmthrottle.RetriesExhaustedException;
import io.github.llmthrottle.RetryAfterTooLongException;
import io.github.llmthrottle.time.TimeSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.retry.RetryException;
import org.springframework.core.retry.RetryTemplate;

/**
 * Runs an HTTP call with retries, on Spring Framework's {@link RetryTemplate}. One engine
 * serves one client's settings and may be shared by threads; it is a plain object, not a
 * bean. Each call gets a template of its own, whose policy is the call's state
 * ({@link Retries}): the wait before a retry depends on the failure (the server's
 * {@code retry-after}) and on the retries made so far, which Spring's back-off does not
 * see, and it is slept on the client's {@link TimeSource} (so that tests run on a fake
 * clock), leaving the template nothing to sleep. A template keeps nothing of an execution
 * and could serve many threads, but it asks its policy only whether a failure is retried
 * and for a new back-off, never for which call: a template shared by the calls of a
 * client could not reach the state of each, so the engine does not keep one.
 * <p>
 * An {@link Attempt} returns its result when the outcome is final (a success, or a
 * non-retryable error the caller surfaces itself) and throws
 * {@link RetryableResponseException} when it may be retried. An {@link IOException} from
 * an attempt is an I/O error and is retried too (unless the thread was interrupted).
 * Before each retry the engine sleeps:
 * <ul>
 * <li>when {@link RetrySettings#respectRetryAfter()} and the server gave a wait: exactly
 * that wait plus non-negative jitter ({@link BackOff#honour}); a wait above
 * {@link RetrySettings#maxRetryAfter()} fails at once with
 * {@link RetryAfterTooLongException} (the failed response is attached as a suppressed
 * exception);</li>
 * <li>otherwise the exponential {@link BackOff}.</li>
 * </ul>
 * When {@link RetrySettings#maxRetries()} retries have failed,
 * {@link RetriesExhaustedException} is thrown, whose cause is the last failure and whose
 * {@code retryAfter} is the last server wait (exhaustion is reported even if that last
 * wait was also too long). If the thread is interrupted while sleeping, retrying stops,
 * the interrupt flag stays set, and an {@link InterruptedIOException} is thrown (cause:
 * the last failure). An I/O exception fits an HTTP interceptor's contract and, unlike a
 * throttling exception, does not make a caller fall back to another model.
 */
public final class RetryEngine {

    private static final Log logger = LogFactory.getLog(RetryEngine.class);

    private final RetrySettings settings;

    private final TimeSource time;

    private final BackOff backOff;

    private final RetryListener listener;

    /**
     * Creates an engine with no listener.
     * @param settings the retry settings
     * @param time sleeps between attempts
     * @param random the source of jitter, safe for concurrent use (e.g.
     * {@link BackOff#THREAD_LOCAL_RANDOM})
     */
    public RetryEngine(RetrySettings settings, TimeSource time, RandomGenerator random) {
        this(settings, time, random, RetryListener.NONE);
    }

    /**
     * Creates an engine.
     * @param settings the retry settings
     * @param time sleeps between attempts
     * @param random the source of jitter, safe for concurrent use (e.g.
     * {@link BackOff#THREAD_LOCAL_RANDOM})
     * @param listener observes retries and server waits
     */
    public RetryEngine(RetrySettings settings, TimeSource time, RandomGenerator random, RetryListener listener) {
        this(settings, time, new BackOff(settings, random), listener);
    }

    private RetryEngine(RetrySettings settings, TimeSource time, BackOff backOff, RetryListener listener) {
        this.settings = settings;
        this.time = time;
        this.backOff = backOff;
        this.listener = listener;
    }

    /**
     * This engine reporting to {@code listener} instead: the same settings, clock and
     * back-off, for the retries of one call whose listener knows its caller.
     * @param listener observes retries and server waits
     * @return this engine when {@code listener} is already its own, else a new one
     */
    public RetryEngine withListener(RetryListener listener) {
        return (listener == this.listener) ? this : new RetryEngine(this.settings, this.time, this.backOff, listener);
    }

    RetryListener listener() {
        return this.listener;
    }

    BackOff backOff() {
        return this.backOff;
    }

    TimeSource time() {
        return this.time;
    }

    /**
     * The settings this engine retries with.
     * @return the settings
     */
    public RetrySettings getSettings() {
        return this.settings;
    }

    /**
     * Runs {@code attempt} until it returns, or retrying gives up.
     * @param <T> the result type
     * @param client the client name, for exceptions and the listener
     * @param model the model name, for exceptions and the listener
     * @param attempt one HTTP attempt; receives the number of retries made so far (0
     * first)
     * @return the result of the first attempt that returned
     * @throws IOException an I/O error that is not retried (the thread was interrupted),
     * or an {@link InterruptedIOException} when interrupted while waiting to retry
     * @throws RetriesExhaustedException when every allowed attempt failed retryably
     * @throws RetryAfterTooLongException when the server asked for a wait above
     * {@code maxRetryAfter}
     */
    public <T> T execute(String client, String model, Attempt<T> attempt) throws IOException {
        return execute(client, model, null, attempt);
    }

    /**
     * Runs {@code attempt} until it returns, or retrying gives up, honouring server waits
     * only up to {@code maxRetryAfter} for this call (a caller's own budget, such as a
     * {@code @Throttled} invocation's max-wait that has a fallback to turn to) when that
     * is below the settings' {@code maxRetryAfter}.
     * @param <T> the result type
     * @param client the client name, for exceptions and the listener
     * @param model the model name, for exceptions and the listener
     * @param maxRetryAfter the longest server wait this call may sleep, or {@code null}
     * for the settings' {@code maxRetryAfter}
     * @param attempt one HTTP attempt; receives the number of retries made so far (0
     * first)
     * @return the result of the first attempt that returned
     * @throws IOException as {@link #execute(String, String, Attempt)}
     */
    public <T> T execute(String client, String model, @Nullable Duration maxRetryAfter, Attempt<T> attempt)
            throws IOException {
        return execute(client, model, maxRetryAfter, null, attempt);
    }

    /**
     * Runs {@code attempt} until it returns, or retrying gives up, as
     * {@link #execute(String, String, Duration, Attempt)}, and gives up before a wait
     * that would end past the waits of the HTTP client's call timeout.
     * @param <T> the result type
     * @param client the client name, for exceptions and the listener
     * @param model the model name, for exceptions and the listener
     * @param maxRetryAfter the longest server wait this call may sleep, or {@code null}
     * for the settings' {@code maxRetryAfter}
     * @param deadline the HTTP client's limit on the whole call, or {@code null} when it
     * sets none
     * @param attempt one HTTP attempt; receives the number of retries made so far (0
     * first)
     * @return the result of the first attempt that returned
     * @throws IOException as {@link #execute(String, String, Attempt)}
     * @throws RetriesExhaustedException also when the wait before the next retry would
     * outlast the call timeout ({@link RetriesExhaustedException#beforeCallTimeout})
     */
    public <T> T execute(String client, String model, @Nullable Duration maxRetryAfter, @Nullable CallDeadline deadline,
            Attempt<T> attempt) throws IOException {
        Duration limit = (maxRetryAfter != null && maxRetryAfter.compareTo(this.settings.maxRetryAfter()) < 0)
                ? maxRetryAfter : this.settings.maxRetryAfter();
        Retries<T> retries = new Retries<>(this, client, model, limit, deadline, attempt);
        try {
            return new RetryTemplate(retries).execute(retries);
        }
        catch (RetryException ex) {
            throw retries.giveUp(ex);
        }
        catch (WaitEnded ex) {
            throw ex.rethrow();
        }
    }

    /**
     * Runs {@code attempt} until its future completes with a result, or retrying gives
     * up, as {@link #execute(String, String, Duration, CallDeadline, Attempt)} does, with
     * the same decisions: the wait before each retry is scheduled on the time source
     * instead of slept, so no thread waits for it.
     * @param <T> the result type
     * @param client the client name, for exceptions and the listener
     * @param model the model name, for exceptions and the listener
     * @param maxRetryAfter the longest server wait this call may wait, or {@code null}
     * for the settings' {@code maxRetryAfter}
     * @param deadline the HTTP client's limit on the whole call, or {@code null}
     * @param attempt one HTTP attempt, started when called; receives the number of
     * retries made so far (0 first)
     * @return the result of the first attempt that completed with one, or the failure
     * {@link #execute} would throw; cancelling it cancels the attempt in progress or the
     * scheduled retry
     */
    public <T> CompletableFuture<T> executeAsync(String client, String model, @Nullable Duration maxRetryAfter,
            @Nullable CallDeadline deadline, AsyncAttempt<T> attempt) {
        Duration limit = (maxRetryAfter != null && maxRetryAfter.compareTo(this.settings.maxRetryAfter()) < 0)
                ? maxRetryAfter : this.settings.maxRetryAfter();
        Retries<T> retries = new Retries<>(this, client, model, limit, deadline, (retryCount) -> {
            throw new IllegalStateException("Asynchronous retries run no blocking attempt");
        });
        return new AsyncRetries<>(retries, this.time, attempt).start();
    }

    /**
     * The failure a future completed with, out of the wrappers its stages put around it.
     * @param failure what a stage of a future saw
     * @return the failure itself
     */
    public static Throwable causeOf(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    static String lastFailure(RetryableResponseException retryable) {
        Classification classification = retryable.getClassification();
        return (classification.outcome() == Classification.Outcome.IO_ERROR)
                ? "I/O error (" + retryable.getFailure() + ")" : classification.describe();
    }

    void notifyListener(Runnable notification) {
        try {
            notification.run();
        }
        catch (RuntimeException ex) {
            logger.warn("RetryListener failed; ignoring", ex);
        }
    }

    /**
     * One HTTP attempt.
     *
     * @param <T> the result type
     */
    @FunctionalInterface
    public interface Attempt<T> {

        /**
         * Makes the attempt.
         * @param retryCount the number of retries made before this attempt (0 on the
         * first)
         * @return the final result
         * @throws IOException on an I/O error, which is retried
         * @throws RetryableResponseException when the response may be retried
         */
        T run(int retryCount) throws IOException;

    }

    /**
     * One HTTP attempt that does not block.
     *
     * @param <T> the result type
     */
    @FunctionalInterface
    public interface AsyncAttempt<T> {

        /**
         * Starts the attempt.
         * @param retryCount the number of retries made before this attempt (0 on the
         * first)
         * @return the final result, or a {@link RetryableResponseException} or
         * {@link IOException} to retry on
         */
        CompletableFuture<T> start(int retryCount);

    }

    /**
     * Ends the retries while waiting: the wait would outlast the call, or was
     * interrupted.
     */
    static final class WaitEnded extends RuntimeException {

        private final transient Exception failure;

        WaitEnded(InterruptedIOException interrupted) {
            super(null, null, false, false);
            this.failure = interrupted;
        }

        WaitEnded(RetriesExhaustedException beforeCallTimeout) {
            super(null, null, false, false);
            this.failure = beforeCallTimeout;
        }

        RuntimeException rethrow() throws IOException {
            if (this.failure instanceof IOException ex) {
                throw ex;
            }
            return (RuntimeException) this.failure;
        }

    }

}
