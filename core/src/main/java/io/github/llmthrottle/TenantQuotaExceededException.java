package io.github.llmthrottle;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a tenant's own limits ({@code llm.throttle.tenants}) cannot admit a call
 * within its maximum wait, or when a token quota of the day or the month (of the tenant,
 * or of the model or client: {@link TokenQuotaExceededException}) is used up. For a
 * quota, {@link #getRetryAfter()} is the time until the quota's window resets (00:00 UTC
 * of the next day, or of the first day of the next month).
 */
public class TenantQuotaExceededException extends LlmThrottleException {

    private final @Nullable String tenant;

    public TenantQuotaExceededException(String client, String model, String tenant, @Nullable Duration retryAfter) {
        this(client, model, tenant, retryAfter,
                "Tenant '" + tenant + "' is over its quota for " + describe(client, model) + retryHint(retryAfter));
    }

    /**
     * Creates the exception of a tenant whose token quota of a day or a month is used up.
     * @param client the client name
     * @param model the model name
     * @param tenant the tenant
     * @param quota the quota, for example {@code 1,000,000 tokens per day}
     * @param retryAfter the time until the quota's window resets
     */
    public TenantQuotaExceededException(String client, String model, String tenant, String quota, Duration retryAfter) {
        this(client, model, tenant, retryAfter, "Tenant '" + tenant + "' has used its quota of " + quota + " (call to "
                + describe(client, model) + ")" + retryHint(retryAfter));
    }

    /**
     * Creates the exception with its message.
     * @param client the client name
     * @param model the model name
     * @param tenant the tenant of the call, or {@code null}
     * @param retryAfter how long to wait, or {@code null}
     * @param message the message
     */
    protected TenantQuotaExceededException(String client, String model, @Nullable String tenant,
            @Nullable Duration retryAfter, String message) {
        super(message, client, model, retryAfter, null);
        this.tenant = tenant;
    }

    /**
     * The tenant of the call.
     * @return the tenant, or {@code null} for a call without tenant
     */
    public @Nullable String getTenant() {
        return this.tenant;
    }

    @Override
    public RejectionReason getRejectionReason() {
        return RejectionReason.TENANT_QUOTA;
    }

}
