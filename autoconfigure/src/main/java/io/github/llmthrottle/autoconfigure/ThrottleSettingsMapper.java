package io.github.llmthrottle.autoconfigure;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

import io.github.llmthrottle.InvalidThrottleConfigurationException;
import io.github.llmthrottle.autoconfigure.LlmThrottleProperties.Circuit;
import io.github.llmthrottle.autoconfigure.LlmThrottleProperties.Queue;
import io.github.llmthrottle.autoconfigure.LlmThrottleProperties.RateLimits;
import io.github.llmthrottle.autoconfigure.LlmThrottleProperties.Tenants;
import io.github.llmthrottle.client.ClientSettings;
import io.github.llmthrottle.client.ClientSettings.ModelSettings;
import io.github.llmthrottle.client.CountTokensSettings;
import io.github.llmthrottle.client.DeploymentSettings;
import io.github.llmthrottle.client.ThrottleSettings;
import io.github.llmthrottle.limit.ConcurrencyLimits;
import io.github.llmthrottle.limit.LimiterOptions;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.limit.QuotaSettings;
import io.github.llmthrottle.limit.QuotaSettings.ClientQuotas;
import io.github.llmthrottle.limit.TokenQuota;
import io.github.llmthrottle.limit.SlowStartSettings;
import io.github.llmthrottle.store.redis.RedisBucketStore;
import io.github.llmthrottle.limit.TenantLimits;
import io.github.llmthrottle.provider.ProviderDialect;
import io.github.llmthrottle.retry.RetrySettings;
import io.github.llmthrottle.routing.CircuitSettings;
import io.github.llmthrottle.routing.ModelReference;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.context.properties.PropertyMapper.Source.Adapter;

/**
 * Maps {@link LlmThrottleProperties} and {@link LlmThrottleRedisProperties}, once, into
 * the immutable settings the core uses: one {@link PropertyMapper} line per property (or
 * nested group) onto the settings' defaults, checking each value on the way. Every rule a
 * property value must meet lives here, once; a value that breaks one fails with an
 * {@link InvalidThrottleConfigurationException} naming the property and what would be
 * valid. (The settings records check their own invariants too, for callers that build
 * them in code; a valid configuration never trips them.)
 * <p>
 * Nested groups are mapped first and handed to the {@link PropertyMapper} as values
 * rather than mapped inside one of its adapters: a source swallows a
 * {@link NullPointerException}, which would turn a bug into a silently missing group.
 */
final class ThrottleSettingsMapper {

    private static final String PREFIX = "llm.throttle.";

    private static final String NO_LIMIT = "Use a positive number, or remove the property for no local limit.";

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
        RetrySettings retry = retry("retry.", properties.getRetry());
        Queue queue = properties.getQueue();
        Tenants tenants = properties.getTenants();
        ThrottleSettings settings = ThrottleSettings.DEFAULTS;
        settings = map.from(clients(properties.getClients(), retry)).to(settings, ThrottleSettings::withClients);
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
            .from(limiter(properties.getConcurrency(), properties.getSlowStart(), properties.getMaxTrackedNames()))
            .to(settings, ThrottleSettings::withLimiter);
        settings = map.from(quotas(properties)).to(settings, ThrottleSettings::withQuotas);
        settings = map.from(properties.getEstimation()::getDocumentTokens)
            .as(ThrottleSettingsMapper.<Long>nonNegativeLong("estimation.document-tokens",
                    "Set the tokens a document given by URL or file id is estimated at, 0 or more (3000 by default)."))
            .to(settings, ThrottleSettings::withDocumentTokens);
        return settings;
    }

    /**
     * The settings of the Redis bucket store ({@code llm.throttle.redis.*}).
     * @param properties the bound properties
     * @return the settings
     * @throws InvalidThrottleConfigurationException naming the first invalid property
     */
    static RedisStoreSettings map(LlmThrottleRedisProperties properties) {
        return new RedisStoreSettings(properties.getKeyPrefix(),
                RedisBucketStore.OnFailure.valueOf(properties.getOnFailure().name()),
                positiveDuration("redis.timeout").adapt(properties.getTimeout()),
                nonNegativeDuration("redis.retry-interval").adapt(properties.getRetryInterval()));
    }

    private static Map<String, ClientSettings> clients(Map<String, ClientProperties> clients, RetrySettings retry) {
        Map<String, ClientSettings> settings = new LinkedHashMap<>();
        clients.forEach((name, client) -> settings.put(name, client(name, client, retry)));
        fallbacks(settings);
        return settings;
    }

    /**
     * Checks every fallback entry once all clients are known: an entry names a model of
     * its own client, or {@code CLIENT:MODEL} of another one.
     */
    private static void fallbacks(Map<String, ClientSettings> clients) {
        Map<String, Set<String>> models = new LinkedHashMap<>();
        clients.forEach((name, client) -> models.put(name, client.models().keySet()));
        clients.forEach((name, client) -> client.models().forEach((model, settings) -> {
            String prefix = "clients." + name + ".models." + model + ".fallback";
            List<String> fallback = settings.fallback();
            Set<ModelReference> seen = new LinkedHashSet<>();
            seen.add(new ModelReference(name, model));
            for (int i = 0; i < fallback.size(); i++) {
                String property = prefix + "[" + i + "]";
                String entry = fallback.get(i);
                ModelReference target;
                try {
                    target = ModelReference.resolve(entry, name, models);
                }
                catch (ModelReference.InvalidReferenceException ex) {
                    throw invalid(property, entry, ex.getReason(), ex.getAction());
                }
                check(property, entry, (value) -> !target.equals(new ModelReference(name, model)),
                        "a model cannot fall back to itself", "Name a different model.");
                check(property, entry, (value) -> seen.add(target), "names a model listed before it",
                        "List each fallback model once.");
            }
        }));
    }

    private static ClientSettings client(String name, ClientProperties client, RetrySettings retry) {
        PropertyMapper map = PropertyMapper.get();
        String prefix = "clients." + name + ".";
        ProviderDialect dialect = client.getProvider();
        ClientSettings settings = ClientSettings.defaults(name, dialect,
                baseUrl(prefix + "base-url", dialect, client.getBaseUrl()));
        settings = map.from(client::getApiKey).whenHasText().to(settings, ClientSettings::withApiKey);
        settings = map.from(client::getConnectTimeout)
            .as(positiveDuration(prefix + "connect-timeout"))
            .to(settings, ClientSettings::withConnectTimeout);
        settings = map.from(client::getReadTimeout)
            .as(positiveDuration(prefix + "read-timeout"))
            .to(settings, ClientSettings::withReadTimeout);
        settings = map.from(headers(dialect, client.getDefaultHeaders()))
            .to(settings, ClientSettings::withDefaultHeaders);
        settings = map.from(client::getDefaultModel)
            .as(notBlank(prefix + "default-model"))
            .to(settings, ClientSettings::withDefaultModel);
        settings = map.from(limits(prefix + "default-limits.", client.getDefaultLimits()))
            .to(settings, ClientSettings::withDefaultLimits);
        settings = map.from(models(prefix, dialect, client.getModels())).to(settings, ClientSettings::withModels);
        settings = map.from(retry(prefix + "retry.", inherit(retry, client.getRetry())))
            .to(settings, ClientSettings::withRetry);
        settings = map.from(countTokens(prefix, dialect, client)).to(settings, ClientSettings::withCountTokens);
        return settings;
    }

    /**
     * Counting by the provider ({@code estimation: count-tokens}), which only Anthropic's
     * dialect offers.
     */
    private static CountTokensSettings countTokens(String prefix, ProviderDialect dialect, ClientProperties client) {
        PropertyMapper map = PropertyMapper.get();
        boolean counting = client.getEstimation() == ClientProperties.Estimation.COUNT_TOKENS;
        if (counting) {
            check(prefix + "estimation", "count-tokens", (value) -> dialect == ProviderDialect.ANTHROPIC,
                    "needs provider: anthropic, but the client's provider is "
                            + dialect.name().toLowerCase(Locale.ROOT),
                    "Use estimation: characters, or set provider: anthropic for a client that speaks Anthropic's "
                            + "Messages API.");
        }
        CountTokensProperties properties = client.getCountTokens();
        String countPrefix = prefix + "count-tokens.";
        CountTokensSettings settings = CountTokensSettings.OFF.withEnabled(counting);
        settings = map.from(properties::getMinCharacters)
            .as((value) -> check(countPrefix + "min-characters", value, (number) -> number >= 0, "must not be negative",
                    "Use 0 to count every request, or for example 20000."))
            .to(settings, CountTokensSettings::withMinCharacters);
        settings = map.from(properties::getRequestsPerMinute)
            .as(atLeastOne(countPrefix + "requests-per-minute",
                    "Use the provider's token counting limit, for example 100."))
            .to(settings, CountTokensSettings::withRequestsPerMinute);
        settings = map.from(properties::getTimeout)
            .as(positiveDuration(countPrefix + "timeout"))
            .to(settings, CountTokensSettings::withTimeout);
        return settings;
    }

    /**
     * The dialect's default headers, with configured ones replacing any of the same name.
     */
    private static Map<String, String> headers(ProviderDialect dialect, Map<String, String> configured) {
        Map<String, String> headers = new LinkedHashMap<>(dialect.defaultHeaders());
        configured.forEach((header, value) -> {
            headers.keySet().removeIf((existing) -> existing.equalsIgnoreCase(header));
            headers.put(header, value);
        });
        return headers;
    }

    private static Map<String, ModelSettings> models(String prefix, ProviderDialect dialect,
            Map<String, ModelProperties> models) {
        Map<String, ModelSettings> settings = new LinkedHashMap<>();
        models.forEach((model, properties) -> {
            String modelPrefix = prefix + "models." + model + ".";
            ModelLimits limits = limits(modelPrefix, properties);
            settings.put(model,
                    new ModelSettings(model, limits, properties.getFallback(),
                            contextWindow(modelPrefix + "context-window", properties.getContextWindow()),
                            deployments(modelPrefix + "deployments.", dialect, limits, properties.getDeployments()),
                            properties.getAliases()));
        });
        aliases(prefix, models);
        models.keySet()
            .forEach((model) -> settings.get(model)
                .deployments()
                .keySet()
                .forEach((deployment) -> check(prefix + "models." + model + ".deployments",
                        DeploymentSettings.qualifiedName(model, deployment), (name) -> !models.containsKey(name),
                        "is also the name of a configured model",
                        "Rename the deployment or the model: a deployment's state is kept under MODEL"
                                + DeploymentSettings.SEPARATOR + "DEPLOYMENT.")));
        return settings;
    }

    /**
     * Checks that each alias names one model only: not a configured model, not another
     * model's alias, and not a deployment's name.
     */
    private static void aliases(String prefix, Map<String, ModelProperties> models) {
        Map<String, String> owners = new LinkedHashMap<>();
        models.forEach((model, properties) -> {
            List<String> aliases = properties.getAliases();
            for (int i = 0; i < aliases.size(); i++) {
                String property = prefix + "models." + model + ".aliases[" + i + "]";
                String alias = aliases.get(i);
                check(property, alias, (value) -> !value.isBlank(), "is not a model name",
                        "Give the name requests use for the model, or remove the entry.");
                check(property, alias, (value) -> value.indexOf(DeploymentSettings.SEPARATOR) < 0,
                        "contains '" + DeploymentSettings.SEPARATOR + "', which names a deployment",
                        "Give the name requests use for the model.");
                check(property, alias, (value) -> !models.containsKey(value), "is the name of a configured model",
                        "Remove the alias: each configured model has limits of its own.");
                String owner = owners.putIfAbsent(alias, model);
                check(property, alias, (value) -> owner == null,
                        "is listed already, as an alias of model '" + owner + "'",
                        "List each alias once, under one model.");
            }
        });
    }

    private static final String DEPLOYMENT_QUOTA = "A deployment's tokens count against its model's quota: "
            + "set tokens-per-day or tokens-per-month on the model instead.";

    /**
     * The deployments of a model, each with the model's limits for what it leaves unset.
     */
    private static Map<String, DeploymentSettings> deployments(String prefix, ProviderDialect dialect,
            ModelLimits model, Map<String, DeploymentProperties> deployments) {
        Map<String, DeploymentSettings> settings = new LinkedHashMap<>();
        deployments.forEach((name, deployment) -> {
            String property = prefix + name + ".";
            check(prefix + name, name, (value) -> !value.isBlank(), "is not a deployment name",
                    "Name the deployment, for example eu-west.");
            check(property + "tokens-per-day", deployment.getTokensPerDay(), Objects::isNull,
                    "is not applied to a deployment", DEPLOYMENT_QUOTA);
            check(property + "tokens-per-month", deployment.getTokensPerMonth(), Objects::isNull,
                    "is not applied to a deployment", DEPLOYMENT_QUOTA);
            ModelLimits own = limits(property, deployment);
            ModelLimits limits = new ModelLimits(orElse(own.requestsPerMinute(), model.requestsPerMinute()),
                    orElse(own.inputTokensPerMinute(), model.inputTokensPerMinute()),
                    orElse(own.outputTokensPerMinute(), model.outputTokensPerMinute()),
                    orElse(own.maxConcurrency(), model.maxConcurrency()));
            URI baseUrl = (deployment.getBaseUrl() != null && !deployment.getBaseUrl().isBlank())
                    ? baseUrl(property + "base-url", dialect, deployment.getBaseUrl()) : null;
            String apiKey = (deployment.getApiKey() != null && !deployment.getApiKey().isBlank())
                    ? deployment.getApiKey() : null;
            settings.put(name, new DeploymentSettings(name, baseUrl, apiKey, deployment.getDefaultHeaders(), limits));
        });
        return settings;
    }

    private static <T> @Nullable T orElse(@Nullable T value, @Nullable T fallback) {
        return (value != null) ? value : fallback;
    }

    /** A context window: unset (no check) or a positive number of tokens. */
    private static @Nullable Long contextWindow(String property, @Nullable Long value) {
        return (value != null) ? ThrottleSettingsMapper.<Long>positiveNumber(property,
                "Use the model's context window in tokens, for example 200000, or remove the property for no check.")
            .adapt(value) : null;
    }

    private static ModelLimits limits(String prefix, ModelLimitsProperties limits) {
        return new ModelLimits(perMinute(prefix + "requests-per-minute", limits.getRequestsPerMinute()),
                perMinute(prefix + "input-tokens-per-minute", limits.getInputTokensPerMinute()),
                perMinute(prefix + "output-tokens-per-minute", limits.getOutputTokensPerMinute()),
                limit(prefix + "max-concurrency", limits.getMaxConcurrency()));
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

    /**
     * The retry properties of a client: its overrides, and the shared settings for what
     * it leaves unset.
     */
    private static RetryProperties inherit(RetrySettings shared, RetryOverrideProperties overrides) {
        PropertyMapper map = PropertyMapper.get();
        RetryProperties retry = new RetryProperties();
        map.from(overrides::getMaxRetries).orFrom(shared::maxRetries).to(retry::setMaxRetries);
        map.from(overrides::getDelay).orFrom(shared::delay).to(retry::setDelay);
        map.from(overrides::getMultiplier).orFrom(shared::multiplier).to(retry::setMultiplier);
        map.from(overrides::getMaxDelay).orFrom(shared::maxDelay).to(retry::setMaxDelay);
        map.from(overrides::getJitter).orFrom(shared::jitter).to(retry::setJitter);
        map.from(overrides::getRespectRetryAfter).orFrom(shared::respectRetryAfter).to(retry::setRespectRetryAfter);
        map.from(overrides::getMaxRetryAfter).orFrom(shared::maxRetryAfter).to(retry::setMaxRetryAfter);
        return retry;
    }

    /**
     * Retry settings built in one step rather than with-er by with-er:
     * {@link RetrySettings} checks the delay against the longest delay, so a valid pair
     * could fail half-applied.
     */
    private static RetrySettings retry(String prefix, RetryProperties retry) {
        int maxRetries = nonNegativeNumber(prefix + "max-retries", "Use 0 to disable retries, or a positive number.")
            .adapt(retry.getMaxRetries());
        Duration delay = positiveDuration(prefix + "delay").adapt(retry.getDelay());
        double multiplier = multiplier(prefix + "multiplier").adapt(retry.getMultiplier());
        Duration maxDelay = positiveDuration(prefix + "max-delay").adapt(retry.getMaxDelay());
        check(prefix + "max-delay", maxDelay, (value) -> value.compareTo(delay) >= 0,
                "is below " + PREFIX + prefix + "delay (" + delay + ")", "Set max-delay to at least the first delay.");
        Duration maxRetryAfter = nonNegativeDuration(prefix + "max-retry-after").adapt(retry.getMaxRetryAfter());
        return new RetrySettings(maxRetries, delay, multiplier, maxDelay, retry.getJitter(),
                retry.isRespectRetryAfter(), maxRetryAfter);
    }

    private static URI baseUrl(String property, ProviderDialect dialect, @Nullable String value) {
        if (value == null || value.isBlank()) {
            URI defaultBaseUrl = dialect.defaultBaseUrl();
            if (defaultBaseUrl == null) {
                throw invalid(property, null,
                        "is required for a " + dialect.name().toLowerCase(Locale.ROOT) + " provider",
                        "Set the provider's base URL, for example https://llm.example.com/v1.");
            }
            return defaultBaseUrl;
        }
        String action = "Use an absolute http or https URL, for example https://api.anthropic.com.";
        URI uri;
        try {
            uri = new URI(value.trim());
        }
        catch (URISyntaxException ex) {
            throw invalid(property, value, "is not a valid URL (" + ex.getReason() + ")", action);
        }
        String scheme = (uri.getScheme() != null) ? uri.getScheme().toLowerCase(Locale.ROOT) : null;
        if (!"http".equals(scheme) && !"https".equals(scheme)) {
            throw invalid(property, value, "is not an http or https URL", action);
        }
        if (uri.getHost() == null || uri.getHost().isEmpty()) {
            throw invalid(property, value, "has no host", action);
        }
        return uri;
    }

    // The rules. Each returns its value, so that a mapping line can check it on the way.

    private static Adapter<Duration, Duration> positiveDuration(String property) {
        return (value) -> check(property, value, (duration) -> !duration.isNegative() && !duration.isZero(),
                "must be positive", "Use a positive duration such as 500ms or 10s.");
    }

    private static Adapter<Duration, Duration> nonNegativeDuration(String property) {
        return (value) -> check(property, value, (duration) -> !duration.isNegative(), "must not be negative",
                "Use a duration such as 0s, 500ms or 30s.");
    }

    private static <N extends Number> Adapter<N, N> positiveNumber(String property, String action) {
        return (value) -> check(property, value, (number) -> number.longValue() > 0, "must be positive", action);
    }

    private static Adapter<Integer, Integer> atLeastOne(String property, String action) {
        return (value) -> check(property, value, (number) -> number >= 1, "must be at least 1", action);
    }

    private static <N extends Number> Adapter<N, N> nonNegativeLong(String property, String action) {
        return (value) -> check(property, value, (number) -> number.longValue() >= 0, "must not be negative", action);
    }

    private static Adapter<Integer, Integer> nonNegativeNumber(String property, String action) {
        return (value) -> check(property, value, (number) -> number >= 0, "must not be negative", action);
    }

    private static Adapter<Double, Double> multiplier(String property) {
        return (value) -> check(property, value, (number) -> number >= 1.0 && !number.isInfinite(),
                "must be at least 1.0",
                "Use 1.0 for a constant delay, or for example 2.0 to double it with each retry.");
    }

    private static Adapter<String, String> notBlank(String property) {
        return (value) -> check(property, value, (text) -> !text.isBlank(), "must not be blank",
                "Name a model, or remove the property.");
    }

    /**
     * A limit per day or month, or a concurrency ceiling: unset (no local limit), or
     * positive and at most {@link ModelLimits#MAX_LIMIT}.
     */
    private static <N extends Number> @Nullable N limit(String property, @Nullable N value) {
        return bounded(property, value, ModelLimits.MAX_LIMIT);
    }

    /**
     * A limit per minute: unset (no local limit), or positive and at most
     * {@link ModelLimits#MAX_PER_MINUTE}.
     */
    private static <N extends Number> @Nullable N perMinute(String property, @Nullable N value) {
        return bounded(property, value, ModelLimits.MAX_PER_MINUTE);
    }

    private static <N extends Number> @Nullable N bounded(String property, @Nullable N value, long max) {
        if (value == null) {
            return null;
        }
        return check(property, ThrottleSettingsMapper.<N>positiveNumber(property, NO_LIMIT).adapt(value),
                (number) -> number.longValue() <= max, "must be at most " + max,
                "Use the provider's limit, which is far lower, or remove the property for no local limit.");
    }

    private static <T> T check(String property, T value, Predicate<T> valid, String reason, String action) {
        if (!valid.test(value)) {
            throw invalid(property, value, reason, action);
        }
        return value;
    }

    private static InvalidThrottleConfigurationException invalid(String property, @Nullable Object value, String reason,
            String action) {
        return new InvalidThrottleConfigurationException(PREFIX + property,
                (value != null) ? String.valueOf(value) : null, reason, action);
    }

}
