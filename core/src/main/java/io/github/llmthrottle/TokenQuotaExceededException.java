package io.github.llmthrottle;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when the token quota of the day or the month of a model or a client
 * ({@code tokens-per-day}, {@code tokens-per-month}) is used up: the call fails at once,
 * or a {@code @Throttled} invocation moves on to its next model. A
 * {@link TenantQuotaExceededException}, so that one catch block handles every quota;
 * {@link #getRetryAfter()} is the time until the quota's window resets (00:00 UTC of the
 * next day, or of the first day of the next month).
 */
public class TokenQuotaExceededException extends TenantQuotaExceededException {

    /**
     * Creates the exception.
     * @param client the client name
     * @param model the model name
     * @param tenant the tenant of the call, or {@code null}
     * @param owner whose quota: for example {@code client 'anthropic'}
     * @param quota the quota, for example {@code 1,000,000 tokens per day}
     * @param retryAfter the time until the quota's window resets
     */
    public TokenQuotaExceededException(String client, String model, @Nullable String tenant, String owner, String quota,
            Duration retryAfter) {
        super(client, model, tenant, retryAfter, "The quota of " + owner + " of " + quota + " is used up (call to "
                + describe(client, model) + ")" + retryHint(retryAfter));
    }

    @Override
    public RejectionReason getRejectionReason() {
        return RejectionReason.TOKEN_QUOTA;
    }

}
