package io.github.llmthrottle.quota;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The token quotas over long windows of every client, model and tenant
 * ({@code tokens-per-day} and {@code tokens-per-month} under
 * {@code llm.throttle.clients.NAME}, its {@code models.MODEL} and {@code default-limits},
 * and {@code llm.throttle.tenants}). A call counts against every quota that applies to
 * it: its model's, its client's (all models of the client together) and its tenant's (all
 * clients and models together).
 *
 * @param clients the quotas of each client by name
 * @param defaultTenant the quota of every tenant without an override
 * @param tenantOverrides the quotas by tenant id, already merged with the default
 */
public record QuotaSettings(Map<String, ClientQuotas> clients, TokenQuota defaultTenant,
        Map<String, TokenQuota> tenantOverrides) {

    /** No quota anywhere. */
    public static final QuotaSettings NONE = new QuotaSettings(Map.of(), TokenQuota.NONE, Map.of());

    public QuotaSettings {
        clients = Map.copyOf(clients);
        tenantOverrides = Map.copyOf(tenantOverrides);
    }

    /**
     * Whether no quota is set anywhere.
     * @return {@code true} when nothing is to be counted
     */
    public boolean isEmpty() {
        return this.defaultTenant.isEmpty() && this.tenantOverrides.values().stream().allMatch(TokenQuota::isEmpty)
                && this.clients.values().stream().allMatch(ClientQuotas::isEmpty);
    }

    /**
     * The quota of a client's model.
     * @param client the client name
     * @param model the model name
     * @return its quota ({@link TokenQuota#NONE} for none)
     */
    public TokenQuota model(String client, String model) {
        ClientQuotas quotas = this.clients.get(client);
        if (quotas == null) {
            return TokenQuota.NONE;
        }
        TokenQuota own = quotas.models().get(model);
        return (own != null) ? own : quotas.otherModels();
    }

    /**
     * The quota of a client as a whole.
     * @param client the client name
     * @return its quota ({@link TokenQuota#NONE} for none)
     */
    public TokenQuota client(String client) {
        ClientQuotas quotas = this.clients.get(client);
        return (quotas != null) ? quotas.client() : TokenQuota.NONE;
    }

    /**
     * The quota of a tenant.
     * @param tenant the tenant id, or {@code null} for a call without tenant
     * @return its quota ({@link TokenQuota#NONE} for none)
     */
    public TokenQuota tenant(@Nullable String tenant) {
        if (tenant == null) {
            return TokenQuota.NONE;
        }
        TokenQuota override = this.tenantOverrides.get(tenant);
        return (override != null) ? override : this.defaultTenant;
    }

    /**
     * The token quotas of one client.
     *
     * @param client the quota of the client as a whole
     * @param otherModels the quota of each model not listed ({@code default-limits})
     * @param models the quotas of the listed models
     */
    public record ClientQuotas(TokenQuota client, TokenQuota otherModels, Map<String, TokenQuota> models) {

        public ClientQuotas {
            models = Map.copyOf(models);
        }

        boolean isEmpty() {
            return this.client.isEmpty() && this.otherModels.isEmpty()
                    && this.models.values().stream().allMatch(TokenQuota::isEmpty);
        }

    }

}
