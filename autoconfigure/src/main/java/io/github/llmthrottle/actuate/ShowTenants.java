package io.github.llmthrottle.actuate;

import java.security.Principal;

import org.jspecify.annotations.Nullable;

/**
 * When the {@code llmthrottle} endpoint and the health component show tenant ids (which
 * may name a customer): like Spring Boot's {@code show-values} and {@code show-details}.
 * Hidden, a tenant's quota is still listed, without its id, and the health component
 * counts the tenants whose quota is exhausted.
 */
public enum ShowTenants {

    /** Never show tenant ids. */
    NEVER,

    /**
     * Show tenant ids to an authenticated user of the endpoint; the health component,
     * which cannot tell who asks, hides them.
     */
    WHEN_AUTHORIZED,

    /** Always show tenant ids. */
    ALWAYS;

    /**
     * Whether tenant ids are shown to the one who asks.
     * @param principal who asks, {@code null} when not authenticated or unknown
     * @return whether to show them
     */
    public boolean isShown(@Nullable Principal principal) {
        return this == ALWAYS || (this == WHEN_AUTHORIZED && principal != null);
    }

}
