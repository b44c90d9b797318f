package io.github.llmthrottle.retry;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.random.RandomGenerator;

import io.github.llmthrottle.RetriesExhaustedException;
import io.github.llmthrottle.RetryAfterTooLongException;
import io.github.llmthrottle.time.TimeSource;
import io.github.llmthrottle.provider.LogText;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.retry.RecoveryCallback;
import org.springframework.retry.RetryCallback;
import org.springframework.retry.RetryContext;
import org.springframework.retry.RetryPolicy;
import org.springframework.retry.backoff.BackOffContext;
import org.springframework.retry.backoff.BackOffInterruptedException;
import org.springframework.retry.backoff.BackOffPolicy;
import org.springframework.retry.context.RetryContextSupport;
import org.springframework.retry.support.RetryTemplate;

/**
 * Runs an HTTP call with retries, on Spring Retry's {@link RetryTemplate}. One engine
 * serves one client's settings and may be shared by threads; it is a plain object, not a
 * bean.
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

    private static final String CLIENT = RetryEngine.class.getName() + ".client";

    private static final String MODEL = RetryEngine.class.getName() + ".model";

    private static final String MAX_RETRY_AFTER = RetryEngine.class.getName() + ".maxRetryAfter";

    private static final String DEADLINE = RetryEngine.class.getName() + ".deadline";

    private final RetrySettings settings;

    private final TimeSource time;

    private final BackOff backOff;

    private final RetryListener listener;

    private final RetryTemplate template;

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
        this.settings = settings;
        this.time = time;
        this.backOff = new BackOff(settings, random);
        this.listener = listener;
        this.template = new RetryTemplate();
        this.template.setRetryPolicy(new ThrottleRetryPolicy());
        this.template.setBackOffPolicy(new ThrottleBackOffPolicy());
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
        RetryCallback<T, IOException> callback = (context) -> {
            context.setAttribute(CLIENT, client);
            context.setAttribute(MODEL, model);
            context.setAttribute(MAX_RETRY_AFTER, limit);
            context.setAttribute(DEADLINE, deadline);
            try {
                return attempt.run(context.getRetryCount());
            }
            catch (RetryableResponseException ex) {
                Duration serverWait = ex.getClassification().serverWait();
                if (serverWait != null) {
                    notifyListener(() -> this.listener.onServerWait(client, model, serverWait));
                }
                throw ex;
            }
            catch (IOException ex) {
                Classification classification = ResponseClassifier.ioError(ex);
                if (!classification.retryable()) {
                    throw ex;
                }
                throw new RetryableResponseException(classification, ex);
            }
        };
        RecoveryCallback<T> recovery = (context) -> {
            throw giveUp(client, model, context);
        };
        try {
            return this.template.execute(callback, recovery);
        }
        catch (DeadlineReachedException ex) {
            RetryableResponseException failure = ex.failure;
            throw RetriesExhaustedException.beforeCallTimeout(client, model, ex.attempts, lastFailure(failure), ex.wait,
                    ex.deadline.callTimeout(), failure.getFailure(), failure.getRequestId());
        }
        catch (RetryInterruptedException ex) {
            InterruptedIOException interrupted = new InterruptedIOException(
                    "Interrupted while waiting to retry client '" + client + "', model '" + model + "'");
            interrupted.initCause(ex.failure);
            throw interrupted;
        }
    }

    private Exception giveUp(String client, String model, RetryContext context) throws Exception {
        Throwable last = context.getLastThrowable();
        if (!(last instanceof RetryableResponseException retryable)) {
            // Not ours to retry: let it through as the attempt threw it.
            if (last instanceof Error error) {
                throw error;
            }
            return (last instanceof Exception ex) ? ex : new IllegalStateException(last);
        }
        Classification classification = retryable.getClassification();
        Duration serverWait = classification.serverWait();
        int attempts = context.getRetryCount();
        if (attempts <= this.settings.maxRetries() && isTooLong(classification, context)) {
            return new RetryAfterTooLongException(client, model, serverWait, maxRetryAfter(context),
                    classification.status(), retryable.getFailure(), retryable.getRequestId());
        }
        return new RetriesExhaustedException(client, model, attempts, lastFailure(retryable), serverWait,
                retryable.getFailure(), retryable.getRequestId());
    }

    private static String lastFailure(RetryableResponseException retryable) {
        Classification classification = retryable.getClassification();
        return (classification.outcome() == Classification.Outcome.IO_ERROR)
                ? "I/O error (" + retryable.getFailure() + ")" : classification.describe();
    }

    private boolean isTooLong(Classification classification, RetryContext context) {
        Duration serverWait = classification.serverWait();
        return this.settings.respectRetryAfter() && serverWait != null
                && serverWait.compareTo(maxRetryAfter(context)) > 0;
    }

    private Duration maxRetryAfter(RetryContext context) {
        return (context.getAttribute(MAX_RETRY_AFTER) instanceof Duration limit) ? limit
                : this.settings.maxRetryAfter();
    }

    private void notifyListener(Runnable notification) {
        try {
            notification.run();
        }
        catch (RuntimeException ex) {
            logger.warn("RetryListener failed; ignoring", ex);
        }
    }

    private static String attribute(RetryContext context, String name) {
        Object value = context.getAttribute(name);
        return (value != null) ? value.toString() : "";
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
     * Retries while the last failure is ours, retryable, within budget and not asking too
     * long.
     */
    private final class ThrottleRetryPolicy implements RetryPolicy {

        @Override
        public boolean canRetry(RetryContext context) {
            Throwable last = context.getLastThrowable();
            if (last == null) {
                return true;
            }
            return last instanceof RetryableResponseException retryable
                    && context.getRetryCount() <= RetryEngine.this.settings.maxRetries()
                    && !isTooLong(retryable.getClassification(), context);
        }

        @Override
        public RetryContext open(@Nullable RetryContext parent) {
            return new RetryContextSupport(parent);
        }

        @Override
        public void close(RetryContext context) {
        }

        @Override
        public void registerThrowable(RetryContext context, @Nullable Throwable throwable) {
            ((RetryContextSupport) context).registerThrowable(throwable);
        }

        @Override
        public int getMaxAttempts() {
            return RetryEngine.this.settings.maxRetries() + 1;
        }

    }

    /** Sleeps the server's wait when there is one to respect, else the back-off. */
    private final class ThrottleBackOffPolicy implements BackOffPolicy {

        @Override
        public BackOffContext start(RetryContext context) {
            return new CallState(context);
        }

        @Override
        public void backOff(BackOffContext backOffContext) throws BackOffInterruptedException {
            CallState state = (CallState) backOffContext;
            RetryableResponseException failure = (RetryableResponseException) state.context.getLastThrowable();
            Classification classification = failure.getClassification();
            int retry = state.context.getRetryCount();
            Duration serverWait = RetryEngine.this.settings.respectRetryAfter() ? classification.serverWait() : null;
            Duration wait = RetryEngine.this.backOff.waitBefore(retry, serverWait, state.previous);
            state.previous = wait;
            if (state.context.getAttribute(DEADLINE) instanceof CallDeadline deadline
                    && !deadline.fits(wait, RetryEngine.this.time.nanoTime())) {
                throw new DeadlineReachedException(failure, retry, wait, deadline);
            }
            String client = attribute(state.context, CLIENT);
            String model = attribute(state.context, MODEL);
            notifyListener(() -> RetryEngine.this.listener.onRetry(client, model, classification, wait, retry));
            if (logger.isDebugEnabled()) {
                String status = (classification.status() != 0) ? "HTTP " + classification.status() : "an I/O error";
                String why = (serverWait != null) ? "the server asked for " + serverWait : "back-off";
                String requestId = (failure.getRequestId() != null) ? ", request id " + failure.getRequestId() : "";
                logger.debug(LogText.escape("Client '" + client + "', model '" + model + "': retry " + retry + " of "
                        + RetryEngine.this.settings.maxRetries() + " after " + status + " ("
                        + classification.outcome().metricTag() + requestId + ") in " + wait + " (" + why + ")"));
            }
            try {
                if (Thread.currentThread().isInterrupted()) {
                    throw new InterruptedException();
                }
                RetryEngine.this.time.sleep(wait);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new RetryInterruptedException(failure.getFailure(), ex);
            }
        }

    }

    private static final class CallState implements BackOffContext {

        private final RetryContext context;

        private @Nullable Duration previous;

        CallState(RetryContext context) {
            this.context = context;
        }

    }

    /** The wait before the next retry would end past the waits of the call timeout. */
    private static final class DeadlineReachedException extends BackOffInterruptedException {

        private final transient RetryableResponseException failure;

        private final int attempts;

        private final Duration wait;

        private final transient CallDeadline deadline;

        DeadlineReachedException(RetryableResponseException failure, int attempts, Duration wait,
                CallDeadline deadline) {
            super("The next retry would outlast the call timeout");
            this.failure = failure;
            this.attempts = attempts;
            this.wait = wait;
            this.deadline = deadline;
        }

    }

    private static final class RetryInterruptedException extends BackOffInterruptedException {

        private final transient Throwable failure;

        RetryInterruptedException(Throwable failure, InterruptedException cause) {
            super("Interrupted while waiting to retry", cause);
            this.failure = failure;
        }

    }

}
