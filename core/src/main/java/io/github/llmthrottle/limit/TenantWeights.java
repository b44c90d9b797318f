package io.github.llmthrottle.limit;

import java.math.BigDecimal;
import java.util.Map;

/**
 * The weights of tenants ({@code llm.throttle.tenants.overrides.T.weight}): when calls of
 * several tenants of one priority wait for a model, they are admitted in proportion to
 * their weights, counted in estimated tokens; a tenant without a weight has weight 1.
 * Without any weight configured, waiting calls keep their arrival order.
 *
 * @param weights the configured weights by tenant, each positive
 */
public record TenantWeights(Map<String, BigDecimal> weights) {

    /** No weight configured: arrival order. */
    public static final TenantWeights NONE = new TenantWeights(Map.of());

    public TenantWeights {
        weights = Map.copyOf(weights);
        weights.forEach((tenant, weight) -> {
            if (weight.signum() <= 0) {
                throw new IllegalArgumentException(
                        "The weight of tenant '" + tenant + "' must be positive, was " + weight.toPlainString());
            }
        });
    }

    /**
     * Whether any tenant has a weight.
     * @return whether calls are ordered by weighted fair share
     */
    public boolean isEmpty() {
        return this.weights.isEmpty();
    }

    /**
     * The weight of a tenant.
     * @param tenant the tenant
     * @return its weight, 1 when it has none
     */
    public double weight(String tenant) {
        BigDecimal weight = this.weights.get(tenant);
        return (weight != null) ? weight.doubleValue() : 1.0;
    }

}
