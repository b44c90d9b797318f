package io.github.llmthrottle.retry;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;

import io.github.llmthrottle.RetriesExhaustedException;
import io.github.llmthrottle.RetryAfterTooLongException;
import io.github.llmthrottle.provider.LogText;
import io.github.llmthrottle.retry.RetryEngine.Attempt;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.retry.RetryException;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.core.retry.Retryable;
import org.springframework.util.Assert;
import org.springframework.util.backoff.BackOffExecution;

/**
 * The retries of one call of a {@link RetryEngine}: its retry policy, back-off and
 * attempt for Spring's {@link RetryTemplate}, and the decisions the engine's non-blocking
 * form ({@link AsyncRetries}) takes from it too: how a failure counts, whether to retry,
 * how long to wait, what to fail with.
 *
 * @param <T> the result type
 */
final class Retries<T>
        implements RetryPolicy, org.springframework.util.backoff.BackOff, BackOffExecution, Retryable<T> {

    private static final Log logger = LogFactory.getLog(RetryEngine.class);

    private final RetryEngine engine;

    private final String client;

    private final String model;

    private final Duration maxRetryAfter;

    private final @Nullable CallDeadline deadline;

    private final Attempt<T> attempt;

    /** Retryable failures so far; the retries made so far before an attempt. */
    private int failures;

    private @Nullable RetryableResponseException lastFailure;

    private @Nullable Duration previous;

    Retries(RetryEngine engine, String client, String model, Duration maxRetryAfter, @Nullable CallDeadline deadline,
            Attempt<T> attempt) {
        this.engine = engine;
        this.client = client;
        this.model = model;
        this.maxRetryAfter = maxRetryAfter;
        this.deadline = deadline;
        this.attempt = attempt;
    }

    @Override
    public String getName() {
        return "client '" + this.client + "', model '" + this.model + "'";
    }

    @Override
    public T execute() throws IOException {
        try {
            return this.attempt.run(this.failures);
        }
        catch (RetryableResponseException | IOException ex) {
            throw failed(ex);
        }
    }

    /** How many retries were made so far: the number of retryable failures. */
    int failures() {
        return this.failures;
    }

    /**
     * Counts the failure of an attempt, in both forms of the engine.
     * @param failure what the attempt threw
     * @return the failure as a retryable one
     * @throws IOException an I/O error that is not retried, as it is
     */
    RetryableResponseException failed(Exception failure) throws IOException {
        RetryableResponseException retryable;
        if (failure instanceof RetryableResponseException ex) {
            Duration serverWait = ex.getClassification().serverWait();
            if (serverWait != null) {
                this.engine
                    .notifyListener(() -> this.engine.listener().onServerWait(this.client, this.model, serverWait));
            }
            retryable = ex;
        }
        else if (failure instanceof IOException ex) {
            Classification classification = ResponseClassifier.ioError(ex);
            if (!classification.retryable()) {
                throw ex;
            }
            retryable = new RetryableResponseException(classification, ex);
        }
        else {
            throw new IllegalArgumentException("Not an attempt's failure: " + failure, failure);
        }
        this.failures++;
        this.lastFailure = retryable;
        return retryable;
    }

    /**
     * Retries while the last failure is ours, retryable, within budget and not asking too
     * long.
     */
    @Override
    public boolean shouldRetry(Throwable throwable) {
        return throwable instanceof RetryableResponseException retryable
                && this.failures <= this.engine.getSettings().maxRetries()
                && !isTooLong(retryable.getClassification().serverWait());
    }

    @Override
    public org.springframework.util.backoff.BackOff getBackOff() {
        return this;
    }

    @Override
    public BackOffExecution start() {
        return this;
    }

    /**
     * Sleeps before the next retry: the server's wait when there is one to respect, else
     * the back-off.
     * @return zero: the wait is slept
     */
    @Override
    public long nextBackOff() {
        RetryableResponseException failure = this.lastFailure;
        Assert.state(failure != null, "No failure to back off from");
        Duration wait;
        try {
            wait = waitBeforeRetry();
        }
        catch (RetriesExhaustedException ex) {
            throw new RetryEngine.WaitEnded(ex);
        }
        try {
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptedException();
            }
            this.engine.time().sleep(wait);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException(
                    "Interrupted while waiting to retry " + getName());
            interrupted.initCause(failure.getFailure());
            throw new RetryEngine.WaitEnded(interrupted);
        }
        return 0;
    }

    /**
     * The wait before the next retry, in both forms of the engine: the server's wait when
     * there is one to respect, else the back-off; reported to the listener.
     * @return the wait
     * @throws RetriesExhaustedException when the wait would outlast the call timeout
     */
    Duration waitBeforeRetry() {
        RetryableResponseException failure = this.lastFailure;
        Assert.state(failure != null, "No failure to back off from");
        Classification classification = failure.getClassification();
        int retry = this.failures;
        Duration serverWait = this.engine.getSettings().respectRetryAfter() ? classification.serverWait() : null;
        Duration wait = this.engine.backOff().waitBefore(retry, serverWait, this.previous);
        this.previous = wait;
        if (this.deadline != null && !this.deadline.fits(wait, this.engine.time().nanoTime())) {
            throw RetriesExhaustedException.beforeCallTimeout(this.client, this.model, retry,
                    RetryEngine.lastFailure(failure), wait, this.deadline.callTimeout(), failure.getFailure(),
                    failure.getRequestId());
        }
        this.engine
            .notifyListener(() -> this.engine.listener().onRetry(this.client, this.model, classification, wait, retry));
        if (logger.isDebugEnabled()) {
            String status = (classification.status() != 0) ? "HTTP " + classification.status() : "an I/O error";
            String why = (serverWait != null) ? "the server asked for " + serverWait : "back-off";
            String requestId = (failure.getRequestId() != null) ? ", request id " + failure.getRequestId() : "";
            logger.debug(LogText.escape("Client '" + this.client + "', model '" + this.model + "': retry " + retry
                    + " of " + this.engine.getSettings().maxRetries() + " after " + status + " ("
                    + classification.outcome().metricTag() + requestId + ") in " + wait + " (" + why + ")"));
        }
        return wait;
    }

    /** What the call fails with when the template stopped retrying. */
    RuntimeException giveUp(RetryException stopped) throws IOException {
        Throwable last = stopped.getLastException();
        return giveUp((last != null) ? last : stopped.getCause());
    }

    /**
     * What the call fails with when retrying stops after {@code last}, in both forms of
     * the engine.
     * @param last the last failure
     * @return the exception to fail with
     * @throws IOException an I/O error that was not ours to retry, as it is
     */
    RuntimeException giveUp(@Nullable Throwable last) throws IOException {
        if (!(last instanceof RetryableResponseException retryable)) {
            // not ours to retry: let it through as the attempt threw it
            if (last instanceof IOException ex) {
                throw ex;
            }
            if (last instanceof Error error) {
                throw error;
            }
            return (last instanceof RuntimeException ex) ? ex : new IllegalStateException(last);
        }
        Classification classification = retryable.getClassification();
        Duration serverWait = classification.serverWait();
        if (this.failures <= this.engine.getSettings().maxRetries() && serverWait != null && isTooLong(serverWait)) {
            return new RetryAfterTooLongException(this.client, this.model, serverWait, this.maxRetryAfter,
                    classification.status(), retryable.getFailure(), retryable.getRequestId());
        }
        return new RetriesExhaustedException(this.client, this.model, this.failures, RetryEngine.lastFailure(retryable),
                serverWait, retryable.getFailure(), retryable.getRequestId());
    }

    /**
     * Whether to retry after the last failure: ours, retryable, within budget and not
     * asking too long.
     */
    boolean retries(RetryableResponseException failure) {
        return shouldRetry(failure);
    }

    private boolean isTooLong(@Nullable Duration serverWait) {
        return this.engine.getSettings().respectRetryAfter() && serverWait != null
                && serverWait.compareTo(this.maxRetryAfter) > 0;
    }

}
