package io.github.llmthrottle.autoconfigure;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.llmthrottle.InvalidThrottleConfigurationException;
import io.github.llmthrottle.autoconfigure.LlmThrottleProperties.Circuit;
import io.github.llmthrottle.autoconfigure.LlmThrottleProperties.Queue;
import io.github.llmthrottle.autoconfigure.LlmThrottleProperties.RateLimits;
import io.github.llmthrottle.autoconfigure.LlmThrottleProperties.Tenants;
import io.github.llmthrottle.client.ThrottleSettings;
import io.github.llmthrottle.limit.ConcurrencyLimits;
import io.github.llmthrottle.limit.LimiterOptions;
import io.github.llmthrottle.limit.SlowStartSettings;
import io.github.llmthrottle.limit.TenantLimits;
import io.github.llmthrottle.limit.TenantWeights;
import io.github.llmthrottle.quota.QuotaSettings;
import io.github.llmthrottle.quota.QuotaSettings.ClientQuotas;
import io.github.llmthrottle.quota.TokenQuota;
import io.github.llmthrottle.retry.RetrySettings;
import io.github.llmthrottle.routing.CircuitSettings;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.PropertyMapper;

import static io.github.llmthrottle.autoconfigure.SettingsValidation.atLeastOne;
import static io.github.llmthrottle.autoconfigure.SettingsValidation.check;
import static io.github.llmthrottle.autoconfigure.SettingsValidation.limit;
import static io.github.llmthrottle.autoconfigure.SettingsValidation.nonNegativeDuration;
import static io.github.llmthrottle.autoconfigure.SettingsValidation.perMinute;
import static io.github.llmthrottle.autoconfigure.SettingsValidation.positiveDuration;
import static io.github.llmthrottle.autoconfigure.SettingsValidation.positiveNumber;

/**
 * Maps {@link LlmThrottleProperties}, once, into the immutable settings the core uses:
 * one {@link PropertyMapper} line per property (or nested group) onto the settings'
 * defaults, checking each value on the way. Every rule a property value must meet lives
 * in {@link SettingsValidation}, once; a value that breaks one fails with an
 * {@link InvalidThrottleConfigurationException} naming the property and what would be
 * valid. The clients, with their models and deployments, are mapped by
 * {@link ClientSettingsMapper}. (The settings records check their own invariants too, for
 * callers that build them in code; a valid configuration never trips them.)
 * <p>
 * Nested groups are mapped first and handed to the {@link PropertyMapper} as values
 * rather than mapped inside one of its adapters: a source swallows a
 * {@link NullPointerException}, which would turn a bug into a silently missing group.
 */
final class ThrottleSettingsMapper {

    private ThrottleSettingsMapper() {
    }

    /**
     * The settings of {@code llm.throttle.*}.
     * @param properties the bound properties
     * @return the settings
     * @throws InvalidThrottleConfigurationException naming the first invalid property
     */
    static ThrottleSettings map(LlmThrottleProperties properties) {
        PropertyMapper map = PropertyMapper.get();
        RetrySettings retry = ClientSettingsMapper.retry("retry.", properties.getRetry());
        Queue queue = properties.getQueue();
        Tenants tenants = properties.getTenants();
        ThrottleSettings settings = ThrottleSettings.DEFAULTS;
        settings = map.from(ClientSettingsMapper.clients(properties.getClients(), retry, properties.getUtilization()))
            .to(settings, ThrottleSettings::withClients);
        settings = map.from(queue::getCapacity)
            .as(positiveNumber("queue.capacity", "Set a capacity of at least 1."))
            .to(settings, ThrottleSettings::withQueueCapacity);
        settings = map.from(queue::getMaxWait)
            .as(nonNegativeDuration("queue.max-wait"))
            .to(settings, ThrottleSettings::withMaxWait);
        TenantLimits defaultTenant = tenant("tenants.default.", tenants.getDefault());
        settings = map.from(defaultTenant).to(settings, ThrottleSettings::withDefaultTenantLimits);
        settings = map.from(tenants(tenants.getOverrides(), defaultTenant))
            .to(settings, ThrottleSettings::withTenantOverrides);
        settings = map.from(circuit(properties.getCircuit())).to(settings, ThrottleSettings::withCircuit);
        settings = map
            .from(limiter(properties.getConcurrency(), properties.getSlowStart(), properties.getMaxTrackedNames())
                .withTenantWeights(tenantWeights(tenants)))
            .to(settings, ThrottleSettings::withLimiter);
        settings = map.from(quotas(properties)).to(settings, ThrottleSettings::withQuotas);
        settings = map.from(properties.getEstimation()::getDocumentTokens)
            .as(SettingsValidation.<Long>nonNegativeLong("estimation.document-tokens",
                    "Set the tokens a document given by URL or file id is estimated at, 0 or more (3000 by default)."))
            .to(settings, ThrottleSettings::withDocumentTokens);
        return settings;
    }

    /** A tenant's own limits, or {@code null} when it sets none. */
    private static @Nullable TenantLimits tenant(String prefix, RateLimits limits) {
        TenantLimits tenant = new TenantLimits(perMinute(prefix + "requests-per-minute", limits.getRequestsPerMinute()),
                perMinute(prefix + "input-tokens-per-minute", limits.getInputTokensPerMinute()),
                perMinute(prefix + "output-tokens-per-minute", limits.getOutputTokensPerMinute()));
        boolean none = tenant.requestsPerMinute() == null && tenant.inputTokensPerMinute() == null
                && tenant.outputTokensPerMinute() == null;
        return none ? null : tenant;
    }

    /** The weights of the tenants that set one. */
    private static TenantWeights tenantWeights(Tenants tenants) {
        Map<String, BigDecimal> weights = new LinkedHashMap<>();
        tenants.getOverrides().forEach((tenant, limits) -> {
            BigDecimal weight = limits.getWeight();
            if (weight != null) {
                weights.put(tenant, check("tenants.overrides." + tenant + ".weight", weight,
                        (value) -> value.signum() > 0, "must be positive",
                        "Use a positive number such as 1, 3 or 0.5: a tenant weighted 3 gets three times the share "
                                + "of a tenant weighted 1."));
            }
        });
        return new TenantWeights(weights);
    }

    /** Each override with the default's values for what it leaves unset. */
    private static Map<String, TenantLimits> tenants(Map<String, ? extends RateLimits> overrides,
            @Nullable TenantLimits defaults) {
        Map<String, TenantLimits> tenants = new LinkedHashMap<>();
        overrides.forEach((tenant, limits) -> {
            TenantLimits override = tenant("tenants.overrides." + tenant + ".", limits);
            if (override != null) {
                tenants.put(tenant, (defaults != null) ? defaults.overriddenBy(override) : override);
            }
        });
        return tenants;
    }

    /**
     * The token quotas of every client, model and tenant; a tenant override inherits what
     * it leaves unset from the default.
     */
    private static QuotaSettings quotas(LlmThrottleProperties properties) {
        Map<String, ClientQuotas> clients = new LinkedHashMap<>();
        properties.getClients().forEach((name, client) -> {
            String prefix = "clients." + name + ".";
            Map<String, TokenQuota> models = new LinkedHashMap<>();
            client.getModels()
                .forEach((model, limits) -> models.put(model, quota(prefix + "models." + model + ".", limits)));
            clients.put(name, new ClientQuotas(quota(prefix, client),
                    quota(prefix + "default-limits.", client.getDefaultLimits()), models));
        });
        Tenants tenants = properties.getTenants();
        TokenQuota defaultTenant = quota("tenants.default.", tenants.getDefault());
        Map<String, TokenQuota> overrides = new LinkedHashMap<>();
        tenants.getOverrides()
            .forEach((tenant, limits) -> overrides.put(tenant,
                    defaultTenant.overriddenBy(quota("tenants.overrides." + tenant + ".", limits))));
        return new QuotaSettings(clients, defaultTenant, overrides);
    }

    private static TokenQuota quota(String prefix, TokenQuotaProperties quotas) {
        return new TokenQuota(limit(prefix + "tokens-per-day", quotas.getTokensPerDay()),
                limit(prefix + "tokens-per-month", quotas.getTokensPerMonth()));
    }

    private static LimiterOptions limiter(ConcurrencyProperties concurrency, SlowStartProperties slowStart,
            int maxTrackedNames) {
        int initial = atLeastOne("concurrency.initial", "Use a small number of calls such as 50.")
            .adapt(concurrency.getInitial());
        int max = atLeastOne("concurrency.max", "Use a number of calls such as 1000.").adapt(concurrency.getMax());
        Duration idle = positiveDuration("slow-start.idle").adapt(slowStart.getIdle());
        int tracked = atLeastOne("max-tracked-names", "Use a number of names such as 100.").adapt(maxTrackedNames);
        return new LimiterOptions(new ConcurrencyLimits(initial, max),
                new SlowStartSettings(slowStart.isEnabled(), idle), tracked);
    }

    private static CircuitSettings circuit(Circuit circuit) {
        PropertyMapper map = PropertyMapper.get();
        CircuitSettings settings = CircuitSettings.DEFAULTS;
        settings = map.from(circuit::isEnabled).to(settings, CircuitSettings::withEnabled);
        settings = map.from(circuit::getFailureThreshold)
            .as(atLeastOne("circuit.failure-threshold",
                    "Use a number of consecutive failures such as 5, or set llm.throttle.circuit.enabled=false."))
            .to(settings, CircuitSettings::withFailureThreshold);
        settings = map.from(circuit::getOpenWait)
            .as(nonNegativeDuration("circuit.open-wait"))
            .to(settings, CircuitSettings::withOpenWait);
        settings = map.from(circuit::getHalfOpenProbes)
            .as(atLeastOne("circuit.half-open-probes", "Use a small number of probe calls such as 1 to 3."))
            .to(settings, CircuitSettings::withHalfOpenProbes);
        return settings;
    }

}
