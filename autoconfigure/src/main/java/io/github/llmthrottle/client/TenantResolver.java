package io.github.llmthrottle.client;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpRequest;

/**
 * Tells which tenant a request made outside a {@code @Throttled} method belongs to (inside one,
 * the annotation's {@code tenant} expression wins), so that the tenant's limits
 * ({@code llm.throttle.tenants}) apply. Register a bean of this type, for example to read the
 * tenant from the security context or a request-scoped bean.
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
    @Nullable String resolveTenant(HttpRequest request);

}
