package io.github.llmthrottle;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a tenant's own limits ({@code llm.throttle.tenants}) cannot admit a call
 * within its maximum wait.
 */
public class TenantQuotaExceededException extends LlmThrottleException {

    public TenantQuotaExceededException(String client, String model, String tenant, @Nullable Duration retryAfter) {
        super("Tenant '" + tenant + "' is over its quota for " + describe(client, model) + retryHint(retryAfter),
                client, model, retryAfter, null);
    }

    @Override
    public RejectionReason getRejectionReason() {
        return RejectionReason.TENANT_QUOTA;
    }

}
