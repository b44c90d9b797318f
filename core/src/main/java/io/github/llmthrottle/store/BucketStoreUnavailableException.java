package io.github.llmthrottle.store;

import java.time.Duration;

import io.github.llmthrottle.SharedStoreUnavailableException;
import org.jspecify.annotations.Nullable;

/**
 * Thrown by a {@link TokenBucket} of a shared {@link BucketStore} when the store cannot
 * be reached and it is configured to refuse admissions rather than fall back to local
 * buckets. {@link ModelLimiter} fails the waiting call with a
 * {@link SharedStoreUnavailableException} naming its client and model.
 */
public class BucketStoreUnavailableException extends RuntimeException {

    private final @Nullable Duration retryAfter;

    /**
     * Creates a new instance.
     * @param message what is unavailable
     * @param retryAfter when the store will be tried again, or {@code null} if unknown
     * @param cause the store's last failure, or {@code null}
     */
    public BucketStoreUnavailableException(String message, @Nullable Duration retryAfter, @Nullable Throwable cause) {
        super(message, cause);
        this.retryAfter = retryAfter;
    }

    /**
     * When the store will be tried again.
     * @return the wait, or {@code null} if unknown
     */
    public @Nullable Duration getRetryAfter() {
        return this.retryAfter;
    }

}
