package io.github.llmthrottle.client;

import org.jspecify.annotations.Nullable;

/**
 * Tells which tenant a request whose caller names none belongs to (inside a
 * {@code @Throttled} method, the annotation's {@code tenant} expression wins; see
 * {@link Caller}), so that the tenant's limits ({@code llm.throttle.tenants}) apply.
 * Register a bean of this type, for example to read the tenant from the security context,
 * a request-scoped bean or a header of the outgoing request
 * ({@code request -> request.headers().first("X-Tenant")}). Called for every HTTP client
 * llm-throttle throttles ({@code RestClient}, and the others its adapters cover).
 */
@FunctionalInterface
public interface TenantResolver {

    /** Resolves no tenant: only the model's limits apply. */
    TenantResolver NONE = (request) -> null;

    /**
     * Resolves the tenant of {@code request}.
     * @param request the outgoing request to the provider
     * @return the tenant id, or {@code null} for none
     */
    @Nullable String resolveTenant(ProviderRequest request);

}
