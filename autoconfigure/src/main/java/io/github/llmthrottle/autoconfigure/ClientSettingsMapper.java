package io.github.llmthrottle.autoconfigure;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.github.llmthrottle.InvalidThrottleConfigurationException;
import io.github.llmthrottle.client.ClientSettings;
import io.github.llmthrottle.client.ClientSettings.ModelSettings;
import io.github.llmthrottle.client.CountTokensSettings;
import io.github.llmthrottle.client.DeploymentSettings;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.provider.ProviderDialect;
import io.github.llmthrottle.retry.RetrySettings;
import io.github.llmthrottle.routing.ModelReference;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.PropertyMapper;

import static io.github.llmthrottle.autoconfigure.SettingsValidation.PREFIX;
import static io.github.llmthrottle.autoconfigure.SettingsValidation.atLeastOne;
import static io.github.llmthrottle.autoconfigure.SettingsValidation.check;
import static io.github.llmthrottle.autoconfigure.SettingsValidation.invalid;
import static io.github.llmthrottle.autoconfigure.SettingsValidation.limit;
import static io.github.llmthrottle.autoconfigure.SettingsValidation.multiplier;
import static io.github.llmthrottle.autoconfigure.SettingsValidation.nonNegativeDuration;
import static io.github.llmthrottle.autoconfigure.SettingsValidation.nonNegativeNumber;
import static io.github.llmthrottle.autoconfigure.SettingsValidation.notBlank;
import static io.github.llmthrottle.autoconfigure.SettingsValidation.perMinute;
import static io.github.llmthrottle.autoconfigure.SettingsValidation.positiveDuration;
import static io.github.llmthrottle.autoconfigure.SettingsValidation.unset;

/**
 * Maps the clients of {@code llm.throttle.clients.*}, for {@link ThrottleSettingsMapper}:
 * each client's connection, headers, retry (its overrides over the shared
 * {@code llm.throttle.retry.*}) and token counting, and its models with their limits,
 * aliases, fallbacks and deployments, checking each value and how the names refer to one
 * another.
 */
final class ClientSettingsMapper {

    private static final String DEPLOYMENT_QUOTA = "A deployment's tokens count against its model's quota: "
            + "set tokens-per-day or tokens-per-month on the model instead.";

    private ClientSettingsMapper() {
    }

    /**
     * The settings of every client, each with the shared retry settings for what it
     * leaves unset; the fallbacks are checked once all clients are known.
     * @param clients the bound clients, by name
     * @param retry the shared retry settings
     * @param utilization the shared utilization ({@code llm.throttle.utilization})
     * @return the settings of the clients, in the order they were configured
     * @throws InvalidThrottleConfigurationException naming the first invalid property
     */
    static Map<String, ClientSettings> clients(Map<String, ClientProperties> clients, RetrySettings retry,
            double utilization) {
        double shared = utilization("utilization", utilization);
        Map<String, ClientSettings> settings = new LinkedHashMap<>();
        clients.forEach((name, client) -> settings.put(name, client(name, client, retry, shared)));
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

    private static ClientSettings client(String name, ClientProperties client, RetrySettings retry,
            double sharedUtilization) {
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
        double utilization = (client.getUtilization() != null)
                ? utilization(prefix + "utilization", client.getUtilization()) : sharedUtilization;
        settings = map.from(limits(prefix + "default-limits.", client.getDefaultLimits()).withUtilization(utilization))
            .to(settings, ClientSettings::withDefaultLimits);
        settings = map.from(models(prefix, dialect, client.getModels(), utilization))
            .to(settings, ClientSettings::withModels);
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
            Map<String, ModelProperties> models, double clientUtilization) {
        Map<String, ModelSettings> settings = new LinkedHashMap<>();
        models.forEach((model, properties) -> {
            String modelPrefix = prefix + "models." + model + ".";
            double utilization = (properties.getUtilization() != null)
                    ? utilization(modelPrefix + "utilization", properties.getUtilization()) : clientUtilization;
            ModelLimits limits = limits(modelPrefix, properties).withUtilization(utilization);
            settings.put(model,
                    new ModelSettings(model, limits, properties.getFallback(),
                            contextWindow(modelPrefix + "context-window", properties.getContextWindow()),
                            deployments(modelPrefix + "deployments.", dialect, limits, properties.getDeployments()),
                            properties.getAliases()));
        });
        aliases(prefix, models);
        settings.forEach((model, modelSettings) -> modelSettings.deployments()
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
            unset(property + "tokens-per-day", deployment.getTokensPerDay(), "is not applied to a deployment",
                    DEPLOYMENT_QUOTA);
            unset(property + "tokens-per-month", deployment.getTokensPerMonth(), "is not applied to a deployment",
                    DEPLOYMENT_QUOTA);
            ModelLimits own = limits(property, deployment);
            ModelLimits limits = new ModelLimits(orElse(own.requestsPerMinute(), model.requestsPerMinute()),
                    orElse(own.inputTokensPerMinute(), model.inputTokensPerMinute()),
                    orElse(own.outputTokensPerMinute(), model.outputTokensPerMinute()),
                    orElse(own.maxConcurrency(), model.maxConcurrency()), model.utilization());
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

    /** A utilization: more than 0, at most 1. */
    private static double utilization(String property, double value) {
        return check(property, value, (share) -> share > 0 && share <= 1, "is not a share of the limits",
                "Use a number more than 0 and at most 1, for example 0.9 to admit 90% of every limit.");
    }

    /** A context window: unset (no check) or a positive number of tokens. */
    private static @Nullable Long contextWindow(String property, @Nullable Long value) {
        return (value != null) ? SettingsValidation.<Long>positiveNumber(property,
                "Use the model's context window in tokens, for example 200000, or remove the property for no check.")
            .adapt(value) : null;
    }

    private static ModelLimits limits(String prefix, ModelLimitsProperties limits) {
        return new ModelLimits(perMinute(prefix + "requests-per-minute", limits.getRequestsPerMinute()),
                perMinute(prefix + "input-tokens-per-minute", limits.getInputTokensPerMinute()),
                perMinute(prefix + "output-tokens-per-minute", limits.getOutputTokensPerMinute()),
                limit(prefix + "max-concurrency", limits.getMaxConcurrency()));
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
     * The retry settings at {@code prefix} (the shared {@code retry.}, or a client's):
     * built in one step rather than with-er by with-er: {@link RetrySettings} checks the
     * delay against the longest delay, so a valid pair could fail half-applied.
     */
    static RetrySettings retry(String prefix, RetryProperties retry) {
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

}
