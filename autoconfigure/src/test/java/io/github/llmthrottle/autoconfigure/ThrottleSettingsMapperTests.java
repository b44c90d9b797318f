package io.github.llmthrottle.autoconfigure;

import java.net.URI;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.InvalidThrottleConfigurationException;
import io.github.llmthrottle.autoconfigure.LlmThrottleProperties.TenantOverride;
import io.github.llmthrottle.client.ClientSettings;
import io.github.llmthrottle.client.CountTokensSettings;
import io.github.llmthrottle.client.DeploymentSettings;
import io.github.llmthrottle.client.ThrottleSettings;
import io.github.llmthrottle.limit.ConcurrencyLimits;
import io.github.llmthrottle.limit.LimiterOptions;
import io.github.llmthrottle.limit.TenantWeights;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.limit.SlowStartSettings;
import io.github.llmthrottle.provider.ProviderDialect;
import io.github.llmthrottle.quota.QuotaSettings;
import io.github.llmthrottle.quota.TokenQuota;
import io.github.llmthrottle.retry.Jitter;
import io.github.llmthrottle.retry.RetrySettings;
import io.github.llmthrottle.routing.CircuitSettings;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class ThrottleSettingsMapperTests {

    private final LlmThrottleProperties properties = new LlmThrottleProperties();

    @Test
    void unsetPropertiesMapOntoTheSettingsDefaults() {
        assertThat(ThrottleSettingsMapper.map(this.properties)).isEqualTo(ThrottleSettings.DEFAULTS);
        for (ProviderDialect dialect : List.of(ProviderDialect.ANTHROPIC, ProviderDialect.OPENAI,
                ProviderDialect.OLLAMA)) {
            assertThat(client("a", dialect)).isEqualTo(ClientSettings.defaults("a", dialect, dialect.defaultBaseUrl()));
        }
        assertThat(client("a", ProviderDialect.ANTHROPIC).retry()).isEqualTo(RetrySettings.DEFAULTS);
    }

    @Test
    void concurrencyAndSlowStartAreMappedAndChecked() {
        this.properties.getConcurrency().setInitial(5);
        this.properties.getConcurrency().setMax(50);
        this.properties.getSlowStart().setEnabled(false);
        this.properties.getSlowStart().setIdle(Duration.ofMinutes(5));
        assertThat(map().limiter()).isEqualTo(
                new LimiterOptions(new ConcurrencyLimits(5, 50), new SlowStartSettings(false, Duration.ofMinutes(5))));
        this.properties.getConcurrency().setInitial(0);
        assertInvalid(this::map, "llm.throttle.concurrency.initial", "must be at least 1");
        this.properties.getConcurrency().setInitial(5);
        this.properties.getSlowStart().setIdle(Duration.ZERO);
        assertInvalid(this::map, "llm.throttle.slow-start.idle", "must be positive");
    }

    @Test
    void utilizationIsInheritedFromTheSharedToTheClientToTheModelAndItsDeploymentsAndChecked() {
        this.properties.setUtilization(0.9);
        ClientProperties client = addClient("a", ProviderDialect.ANTHROPIC);
        ModelProperties opus = new ModelProperties();
        opus.getDeployments().put("eu", new DeploymentProperties());
        client.getModels().put("opus", opus);
        ModelProperties sonnet = new ModelProperties();
        sonnet.setUtilization(0.5);
        client.getModels().put("sonnet", sonnet);
        ClientSettings settings = map().clients().get("a");
        assertThat(settings.defaultLimits().utilization()).isEqualTo(0.9);
        assertThat(settings.models().get("opus").limits().utilization()).isEqualTo(0.9);
        assertThat(settings.models().get("opus").deployments().get("eu").limits().utilization()).isEqualTo(0.9);
        assertThat(settings.models().get("sonnet").limits().utilization()).isEqualTo(0.5);
        client.setUtilization(0.8);
        assertThat(map().clients().get("a").models().get("opus").limits().utilization()).isEqualTo(0.8);
        sonnet.setUtilization(1.5);
        assertInvalid(this::map, "llm.throttle.clients.a.models.sonnet.utilization", "is not a share of the limits");
        sonnet.setUtilization(null);
        client.setUtilization(0.0);
        assertInvalid(this::map, "llm.throttle.clients.a.utilization", "is not a share of the limits");
        client.setUtilization(null);
        this.properties.setUtilization(-1);
        assertInvalid(this::map, "llm.throttle.utilization", "is not a share of the limits");
    }

    @Test
    void tenantWeightsAreMappedAndChecked() {
        assertThat(map().limiter().tenantWeights()).isEqualTo(TenantWeights.NONE);
        TenantOverride gold = new TenantOverride();
        gold.setWeight(new BigDecimal("2.5"));
        this.properties.getTenants().getOverrides().put("gold", gold);
        this.properties.getTenants().getOverrides().put("bronze", new TenantOverride());
        TenantWeights weights = map().limiter().tenantWeights();
        assertThat(weights.weight("gold")).isEqualTo(2.5);
        assertThat(weights.weight("bronze")).isEqualTo(1.0);
        gold.setWeight(BigDecimal.ZERO);
        assertInvalid(this::map, "llm.throttle.tenants.overrides.gold.weight", "must be positive");
    }

    @Test
    void theBoundOfTrackedNamesIsMappedAndChecked() {
        assertThat(map().limiter().maxTrackedNames()).isEqualTo(100);
        this.properties.setMaxTrackedNames(7);
        assertThat(map().limiter().maxTrackedNames()).isEqualTo(7);
        this.properties.setMaxTrackedNames(0);
        assertInvalid(this::map, "llm.throttle.max-tracked-names", "must be at least 1");
    }

    @Test
    void tokenQuotasOfModelsClientsAndTenantsAreMappedAndChecked() {
        ClientProperties client = addClient("a", ProviderDialect.ANTHROPIC);
        client.setTokensPerMonth(1_000_000L);
        ModelProperties opus = new ModelProperties();
        opus.setTokensPerDay(10_000L);
        client.getModels().put("opus", opus);
        client.getDefaultLimits().setTokensPerDay(500L);
        this.properties.getTenants().getDefault().setTokensPerDay(2_000L);
        TenantOverride acme = new TenantOverride();
        acme.setTokensPerMonth(9_000L);
        this.properties.getTenants().getOverrides().put("acme", acme);
        QuotaSettings quotas = map().quotas();
        assertThat(quotas.model("a", "opus")).isEqualTo(new TokenQuota(10_000L, null));
        assertThat(quotas.model("a", "haiku")).isEqualTo(new TokenQuota(500L, null));
        assertThat(quotas.client("a")).isEqualTo(new TokenQuota(null, 1_000_000L));
        assertThat(quotas.tenant("acme")).isEqualTo(new TokenQuota(2_000L, 9_000L));
        assertThat(quotas.tenant("other")).isEqualTo(new TokenQuota(2_000L, null));
        opus.setTokensPerDay(0L);
        assertInvalid(this::map, "llm.throttle.clients.a.models.opus.tokens-per-day", "must be positive");
    }

    @Test
    void eachDialectGivesItsBaseUrlAndHeadersUnlessConfigured() {
        assertThat(client("a", ProviderDialect.ANTHROPIC).baseUrl()).hasToString("https://api.anthropic.com");
        assertThat(client("a", ProviderDialect.OPENAI).baseUrl()).hasToString("https://api.openai.com/v1");
        assertThat(client("a", ProviderDialect.OLLAMA).baseUrl()).hasToString("http://localhost:11434");
        assertThat(client("a", ProviderDialect.OLLAMA).defaultHeaders()).isEmpty();
        assertThat(client("a", ProviderDialect.ANTHROPIC).defaultHeaders())
            .containsExactly(Map.entry("anthropic-version", "2023-06-01"));
        ClientProperties client = addClient("b", ProviderDialect.GENERIC);
        client.setBaseUrl(" https://llm.example.com/v1 ");
        assertThat(map().clients().get("b").baseUrl()).isEqualTo(URI.create("https://llm.example.com/v1"));
    }

    @Test
    void configuredHeadersReplaceTheDialectsWhateverTheirCase() {
        ClientProperties client = addClient("a", ProviderDialect.ANTHROPIC);
        client.setDefaultHeaders(Map.of("Anthropic-Version", "2025-01-01", "x-team", "search"));
        assertThat(map().clients().get("a").defaultHeaders()).containsOnly(Map.entry("Anthropic-Version", "2025-01-01"),
                Map.entry("x-team", "search"));
    }

    @Test
    void blankApiKeyMeansNone() {
        ClientProperties client = addClient("a", ProviderDialect.OPENAI);
        client.setApiKey("  ");
        assertThat(map().clients().get("a").apiKey()).isNull();
        client.setApiKey("sk-1");
        assertThat(map().clients().get("a").apiKey()).isEqualTo("sk-1");
    }

    @Test
    void estimationIsCharactersUnlessCountTokensIsAskedForWhoseSettingsAreMappedAndChecked() {
        ClientProperties client = addClient("a", ProviderDialect.ANTHROPIC);
        assertThat(map().clients().get("a").countTokens()).isEqualTo(CountTokensSettings.OFF);
        assertThat(CountTokensSettings.OFF)
            .isEqualTo(new CountTokensSettings(false, 20_000, 100, Duration.ofSeconds(2)));
        client.setEstimation(ClientProperties.Estimation.COUNT_TOKENS);
        client.getCountTokens().setMinCharacters(5_000);
        client.getCountTokens().setRequestsPerMinute(2_000);
        client.getCountTokens().setTimeout(Duration.ofMillis(750));
        assertThat(map().clients().get("a").countTokens())
            .isEqualTo(new CountTokensSettings(true, 5_000, 2_000, Duration.ofMillis(750)));
        client.getCountTokens().setMinCharacters(-1);
        assertInvalid(this::map, "llm.throttle.clients.a.count-tokens.min-characters", "must not be negative");
        client.getCountTokens().setMinCharacters(0);
        client.getCountTokens().setRequestsPerMinute(0);
        assertInvalid(this::map, "llm.throttle.clients.a.count-tokens.requests-per-minute", "must be at least 1");
        client.getCountTokens().setRequestsPerMinute(1);
        client.getCountTokens().setTimeout(Duration.ZERO);
        assertInvalid(this::map, "llm.throttle.clients.a.count-tokens.timeout", "must be positive");
    }

    @Test
    void countTokensIsRefusedForEveryDialectButAnthropic() {
        ClientProperties client = addClient("a", ProviderDialect.OPENAI);
        client.setEstimation(ClientProperties.Estimation.COUNT_TOKENS);
        assertInvalid(this::map, "llm.throttle.clients.a.estimation", "needs provider: anthropic");
        client.setProvider(ProviderDialect.GENERIC);
        client.setBaseUrl("https://llm.example.com");
        assertInvalid(this::map, "llm.throttle.clients.a.estimation", "needs provider: anthropic");
    }

    @Test
    void clientTimeoutsAndDefaultModelAreMappedAndChecked() {
        ClientProperties client = addClient("a", ProviderDialect.ANTHROPIC);
        client.setConnectTimeout(Duration.ofSeconds(2));
        client.setReadTimeout(Duration.ofSeconds(90));
        client.setDefaultModel("sonnet");
        ClientSettings settings = map().clients().get("a");
        assertThat(settings.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(settings.readTimeout()).isEqualTo(Duration.ofSeconds(90));
        assertThat(settings.defaultModel()).isEqualTo("sonnet");
        client.setReadTimeout(Duration.ZERO);
        assertInvalid(this::map, "llm.throttle.clients.a.read-timeout", "must be positive");
        client.setReadTimeout(Duration.ofSeconds(90));
        client.setDefaultModel(" ");
        assertInvalid(this::map, "llm.throttle.clients.a.default-model", "must not be blank");
    }

    @Test
    void baseUrlMustBeAnAbsoluteHttpUrlAndIsRequiredWithoutADialectDefault() {
        ClientProperties client = addClient("a", ProviderDialect.GENERIC);
        assertInvalid(this::map, "llm.throttle.clients.a.base-url", "is required for a generic provider");
        client.setBaseUrl("ftp://example.com");
        assertInvalid(this::map, "llm.throttle.clients.a.base-url", "is not an http or https URL");
        client.setBaseUrl("https:///v1");
        assertInvalid(this::map, "llm.throttle.clients.a.base-url", "has no host");
    }

    @Test
    void modelLimitsAndDefaultLimitsAreMappedAndMustBePositive() {
        ClientProperties client = addClient("a", ProviderDialect.ANTHROPIC);
        client.getDefaultLimits().setRequestsPerMinute(50L);
        ModelProperties opus = new ModelProperties();
        opus.setInputTokensPerMinute(30_000L);
        opus.setMaxConcurrency(4);
        client.setModels(Map.of("opus", opus));
        ClientSettings settings = map().clients().get("a");
        assertThat(settings.defaultLimits()).isEqualTo(new ModelLimits(50L, null, null, null));
        assertThat(settings.limitsOf("opus")).isEqualTo(new ModelLimits(null, 30_000L, null, 4));
        opus.setMaxConcurrency(0);
        assertInvalid(this::map, "llm.throttle.clients.a.models.opus.max-concurrency", "must be positive");
        opus.setMaxConcurrency(4);
        client.getDefaultLimits().setOutputTokensPerMinute(-1L);
        assertInvalid(this::map, "llm.throttle.clients.a.default-limits.output-tokens-per-minute", "must be positive");
    }

    @Test
    void everyLimitIsBoundedSoThatItsArithmeticCannotOverflow() {
        ClientProperties client = addClient("a", ProviderDialect.ANTHROPIC);
        ModelProperties opus = new ModelProperties();
        client.setModels(Map.of("opus", opus));
        opus.setInputTokensPerMinute(ModelLimits.MAX_PER_MINUTE);
        assertThat(map().clients().get("a").limitsOf("opus").inputTokensPerMinute())
            .isEqualTo(ModelLimits.MAX_PER_MINUTE);
        opus.setInputTokensPerMinute(ModelLimits.MAX_PER_MINUTE + 1);
        assertInvalid(this::map, "llm.throttle.clients.a.models.opus.input-tokens-per-minute",
                "must be at most " + ModelLimits.MAX_PER_MINUTE);
        opus.setInputTokensPerMinute(null);
        opus.setTokensPerMonth(ModelLimits.MAX_LIMIT);
        map();
        opus.setTokensPerMonth(Long.MAX_VALUE / 2);
        assertInvalid(this::map, "llm.throttle.clients.a.models.opus.tokens-per-month", "must be at most");
        opus.setTokensPerMonth(null);
        this.properties.getTenants().getDefault().setOutputTokensPerMinute(ModelLimits.MAX_PER_MINUTE + 1);
        assertInvalid(this::map, "llm.throttle.tenants.default.output-tokens-per-minute", "must be at most");
    }

    @Test
    void fallbackMustNameAnotherConfiguredModel() {
        ClientProperties client = addClient("a", ProviderDialect.ANTHROPIC);
        ModelProperties opus = new ModelProperties();
        opus.setFallback(List.of("sonnet"));
        client.setModels(Map.of("opus", opus, "sonnet", new ModelProperties()));
        assertThat(map().clients().get("a").fallbackOf("opus")).containsExactly("sonnet");
        opus.setFallback(List.of("sonnet", "haiku"));
        assertInvalid(this::map, "llm.throttle.clients.a.models.opus.fallback[1]", "not configured");
        opus.setFallback(List.of("opus"));
        assertInvalid(this::map, "llm.throttle.clients.a.models.opus.fallback[0]", "cannot fall back to itself");
    }

    @Test
    void fallbackMayNameAModelOfAnotherClientAsClientColonModel() {
        ClientProperties anthropic = addClient("anthropic", ProviderDialect.ANTHROPIC);
        ModelProperties opus = new ModelProperties();
        anthropic.setModels(Map.of("opus", opus, "llama3:8b", new ModelProperties()));
        ClientProperties openai = addClient("openai", ProviderDialect.OPENAI);
        openai.setModels(Map.of("gpt-4o-mini", new ModelProperties(), "meta-llama/llama-3:70b", new ModelProperties()));
        opus.setFallback(List.of("llama3:8b", "openai:gpt-4o-mini", "openai:meta-llama/llama-3:70b"));
        assertThat(map().clients().get("anthropic").fallbackOf("opus")).containsExactly("llama3:8b",
                "openai:gpt-4o-mini", "openai:meta-llama/llama-3:70b");
        opus.setFallback(List.of("openai:gpt-5"));
        assertInvalid(this::map, "llm.throttle.clients.anthropic.models.opus.fallback[0]",
                "names model 'gpt-5' of client 'openai', which is not configured there");
        opus.setFallback(List.of("azure:gpt-4o-mini"));
        assertInvalid(this::map, "llm.throttle.clients.anthropic.models.opus.fallback[0]",
                "not configured for client 'anthropic'");
        opus.setFallback(List.of("openai:gpt-4o-mini", "openai:gpt-4o-mini"));
        assertInvalid(this::map, "llm.throttle.clients.anthropic.models.opus.fallback[1]",
                "names a model listed before it");
        opus.setFallback(List.of("anthropic:opus"));
        assertInvalid(this::map, "llm.throttle.clients.anthropic.models.opus.fallback[0]",
                "cannot fall back to itself");
    }

    @Test
    void aFallbackThatCouldNameTwoModelsIsAmbiguousUntilQualified() {
        ClientProperties anthropic = addClient("anthropic", ProviderDialect.ANTHROPIC);
        ModelProperties opus = new ModelProperties();
        anthropic.setModels(Map.of("opus", opus, "openai:gpt-4o-mini", new ModelProperties()));
        ClientProperties openai = addClient("openai", ProviderDialect.OPENAI);
        openai.setModels(Map.of("gpt-4o-mini", new ModelProperties()));
        opus.setFallback(List.of("openai:gpt-4o-mini"));
        assertInvalid(this::map, "llm.throttle.clients.anthropic.models.opus.fallback[0]", "is ambiguous");
        opus.setFallback(List.of("anthropic:openai:gpt-4o-mini"));
        assertThat(map().clients().get("anthropic").fallbackOf("opus")).containsExactly("anthropic:openai:gpt-4o-mini");
    }

    @Test
    void contextWindowIsMappedAndMustBePositive() {
        ClientProperties client = addClient("a", ProviderDialect.ANTHROPIC);
        ModelProperties opus = new ModelProperties();
        client.setModels(Map.of("opus", opus, "sonnet", new ModelProperties()));
        opus.setContextWindow(200_000L);
        assertThat(map().clients().get("a").contextWindowOf("opus")).isEqualTo(200_000L);
        assertThat(map().clients().get("a").contextWindowOf("sonnet")).isNull();
        assertThat(map().clients().get("a").contextWindowOf("unknown")).isNull();
        opus.setContextWindow(0L);
        assertInvalid(this::map, "llm.throttle.clients.a.models.opus.context-window", "must be positive");
        opus.setContextWindow(-1L);
        assertInvalid(this::map, "llm.throttle.clients.a.models.opus.context-window", "must be positive");
    }

    @Test
    void deploymentsAreMappedWithTheModelsLimitsForWhatTheyLeaveUnset() {
        ClientProperties client = addClient("a", ProviderDialect.ANTHROPIC);
        client.setApiKey("client-key");
        ModelProperties sonnet = new ModelProperties();
        sonnet.setRequestsPerMinute(100L);
        sonnet.setInputTokensPerMinute(50_000L);
        DeploymentProperties east = new DeploymentProperties();
        east.setRequestsPerMinute(2L);
        DeploymentProperties west = new DeploymentProperties();
        west.setBaseUrl(" https://west.example.com/v1 ");
        west.setApiKey("west-key");
        west.setDefaultHeaders(Map.of("x-team", "search"));
        sonnet.setDeployments(new java.util.LinkedHashMap<>(Map.of("east", east)));
        sonnet.getDeployments().put("west", west);
        client.setModels(Map.of("sonnet", sonnet));
        ThrottleSettings settings = map();
        Map<String, DeploymentSettings> deployments = settings.clients().get("a").deploymentsOf("sonnet");
        assertThat(deployments).containsOnlyKeys("east", "west");
        assertThat(deployments.get("east").baseUrl()).isNull();
        assertThat(deployments.get("east").apiKey()).isNull();
        assertThat(deployments.get("east").limits()).isEqualTo(new ModelLimits(2L, 50_000L, null, null));
        assertThat(deployments.get("west").baseUrl()).isEqualTo(URI.create("https://west.example.com/v1"));
        assertThat(deployments.get("west").apiKey()).isEqualTo("west-key");
        assertThat(deployments.get("west").headers()).containsEntry("x-team", "search");
        assertThat(deployments.get("west").limits()).isEqualTo(new ModelLimits(100L, 50_000L, null, null));
        assertThat(deployments.get("west").toString()).doesNotContain("west-key");
        assertThat(settings.clientLimits().get("a").models()).containsKeys("sonnet", "sonnet@east", "sonnet@west");
        west.setBaseUrl("west.example.com");
        assertInvalid(this::map, "llm.throttle.clients.a.models.sonnet.deployments.west.base-url",
                "not an http or https URL");
        west.setBaseUrl(null);
        west.setOutputTokensPerMinute(0L);
        assertInvalid(this::map, "llm.throttle.clients.a.models.sonnet.deployments.west.output-tokens-per-minute",
                "must be positive");
    }

    @Test
    void aDeploymentsOwnTokenQuotaIsRefusedRatherThanIgnored() {
        ClientProperties client = addClient("a", ProviderDialect.ANTHROPIC);
        ModelProperties sonnet = new ModelProperties();
        DeploymentProperties east = new DeploymentProperties();
        sonnet.setDeployments(Map.of("east", east));
        client.setModels(Map.of("sonnet", sonnet));
        east.setTokensPerDay(1_000_000L);
        assertInvalid(this::map, "llm.throttle.clients.a.models.sonnet.deployments.east.tokens-per-day",
                "is not applied to a deployment");
        east.setTokensPerDay(null);
        east.setTokensPerMonth(1_000_000L);
        assertInvalid(this::map, "llm.throttle.clients.a.models.sonnet.deployments.east.tokens-per-month",
                "is not applied to a deployment");
    }

    @Test
    void aDeploymentMayNotShareItsQualifiedNameWithAModel() {
        ClientProperties client = addClient("a", ProviderDialect.ANTHROPIC);
        ModelProperties sonnet = new ModelProperties();
        sonnet.setDeployments(Map.of("east", new DeploymentProperties()));
        client.setModels(Map.of("sonnet", sonnet, "sonnet@east", new ModelProperties()));
        assertInvalid(this::map, "llm.throttle.clients.a.models.sonnet.deployments",
                "is also the name of a configured model");
    }

    @Test
    void aliasesAreMappedAndEachNamesOneModelOnly() {
        ClientProperties client = addClient("a", ProviderDialect.ANTHROPIC);
        ModelProperties sonnet = new ModelProperties();
        sonnet.setAliases(List.of("sonnet", "claude-sonnet-latest"));
        ModelProperties opus = new ModelProperties();
        client.setModels(new java.util.LinkedHashMap<>(Map.of("claude-sonnet-4-5", sonnet)));
        client.getModels().put("claude-opus-4-7", opus);
        ClientSettings settings = map().clients().get("a");
        assertThat(settings.models().get("claude-sonnet-4-5").aliases()).containsExactly("sonnet",
                "claude-sonnet-latest");
        assertThat(settings.configuredModelOf("claude-sonnet-latest")).isEqualTo("claude-sonnet-4-5");
        opus.setAliases(List.of("sonnet"));
        assertInvalid(this::map, "llm.throttle.clients.a.models.claude-opus-4-7.aliases[0]",
                "is listed already, as an alias of model 'claude-sonnet-4-5'");
        opus.setAliases(List.of("claude-sonnet-4-5"));
        assertInvalid(this::map, "llm.throttle.clients.a.models.claude-opus-4-7.aliases[0]",
                "is the name of a configured model");
        opus.setAliases(List.of("opus@east"));
        assertInvalid(this::map, "llm.throttle.clients.a.models.claude-opus-4-7.aliases[0]", "names a deployment");
        opus.setAliases(List.of(" "));
        assertInvalid(this::map, "llm.throttle.clients.a.models.claude-opus-4-7.aliases[0]", "is not a model name");
    }

    @Test
    void clientRetryOverridesInheritTheSharedRetrySettings() {
        this.properties.getRetry().setMaxRetries(2);
        this.properties.getRetry().setJitter(Jitter.EQUAL);
        ClientProperties client = addClient("a", ProviderDialect.ANTHROPIC);
        client.getRetry().setDelay(Duration.ofSeconds(40));
        client.getRetry().setMaxDelay(Duration.ofSeconds(60));
        client.getRetry().setRespectRetryAfter(false);
        assertThat(map().clients().get("a").retry()).isEqualTo(new RetrySettings(2, Duration.ofSeconds(40), 2.0,
                Duration.ofSeconds(60), Jitter.EQUAL, false, Duration.ofSeconds(60)));
    }

    @Test
    void retryValuesAreCheckedUnderTheSharedOrTheClientsPropertyName() {
        this.properties.getRetry().setMaxRetryAfter(Duration.ofSeconds(-1));
        assertInvalid(this::map, "llm.throttle.retry.max-retry-after", "must not be negative");
        this.properties.getRetry().setMaxRetryAfter(Duration.ofSeconds(60));
        ClientProperties client = addClient("a", ProviderDialect.ANTHROPIC);
        client.getRetry().setMultiplier(Double.NaN);
        assertInvalid(this::map, "llm.throttle.clients.a.retry.multiplier", "must be at least 1.0");
        client.getRetry().setMultiplier(null);
        client.getRetry().setDelay(Duration.ofMinutes(1));
        assertInvalid(this::map, "llm.throttle.clients.a.retry.max-delay",
                "is below llm.throttle.clients.a.retry.delay (PT1M)");
    }

    @Test
    void documentTokensAreMappedAndANegativeValueIsRefusedNamingTheProperty() {
        this.properties.getEstimation().setDocumentTokens(1_500);
        assertThat(map().documentTokens()).isEqualTo(1_500);
        this.properties.getEstimation().setDocumentTokens(-1);
        assertInvalid(this::map, "llm.throttle.estimation.document-tokens", "must not be negative");
    }

    @Test
    void queueSettingsAreMappedAndChecked() {
        this.properties.getQueue().setCapacity(10);
        this.properties.getQueue().setMaxWait(Duration.ZERO);
        ThrottleSettings settings = map();
        assertThat(settings.queueCapacity()).isEqualTo(10);
        assertThat(settings.maxWait()).isZero();
        this.properties.getQueue().setMaxWait(Duration.ofSeconds(-1));
        assertInvalid(this::map, "llm.throttle.queue.max-wait", "must not be negative");
    }

    @Test
    void tenantOverridesInheritTheDefaultTenantLimits() {
        this.properties.getTenants().getDefault().setRequestsPerMinute(600L);
        this.properties.getTenants().getDefault().setInputTokensPerMinute(200_000L);
        TenantOverride acme = new TenantOverride();
        acme.setInputTokensPerMinute(500_000L);
        this.properties.getTenants().setOverrides(Map.of("acme", acme, "quiet", new TenantOverride()));
        ThrottleSettings settings = map();
        assertThat(settings.tenantLimits("acme"))
            .isEqualTo(new io.github.llmthrottle.limit.TenantLimits(600L, 500_000L, null));
        assertThat(settings.tenantLimits("quiet"))
            .isEqualTo(new io.github.llmthrottle.limit.TenantLimits(600L, 200_000L, null));
        assertThat(settings.tenantLimits("anyone")).isEqualTo(settings.defaultTenantLimits());
        acme.setOutputTokensPerMinute(0L);
        assertInvalid(this::map, "llm.throttle.tenants.overrides.acme.output-tokens-per-minute", "must be positive");
    }

    @Test
    void tenantsAreNotLimitedWhenNothingIsSet() {
        this.properties.getTenants().setOverrides(Map.of("acme", new TenantOverride()));
        ThrottleSettings settings = map();
        assertThat(settings.defaultTenantLimits()).isNull();
        assertThat(settings.tenantLimits("acme")).isNull();
    }

    @Test
    void circuitSettingsAreMappedAndChecked() {
        this.properties.getCircuit().setEnabled(false);
        this.properties.getCircuit().setFailureThreshold(3);
        this.properties.getCircuit().setOpenWait(Duration.ofSeconds(5));
        this.properties.getCircuit().setHalfOpenProbes(1);
        assertThat(map().circuit()).isEqualTo(new CircuitSettings(false, 3, Duration.ofSeconds(5), 1));
        this.properties.getCircuit().setHalfOpenProbes(0);
        assertInvalid(this::map, "llm.throttle.circuit.half-open-probes", "must be at least 1");
    }

    private ThrottleSettings map() {
        return ThrottleSettingsMapper.map(this.properties);
    }

    private ClientProperties addClient(String name, ProviderDialect dialect) {
        ClientProperties client = new ClientProperties();
        client.setProvider(dialect);
        this.properties.getClients().put(name, client);
        return client;
    }

    private ClientSettings client(String name, ProviderDialect dialect) {
        addClient(name, dialect);
        return map().clients().get(name);
    }

    private static void assertInvalid(ThrowingCallable mapping, String property, String reason) {
        assertThatExceptionOfType(InvalidThrottleConfigurationException.class).isThrownBy(mapping).satisfies((ex) -> {
            assertThat(ex.getSubject()).isEqualTo(property);
            assertThat(ex.getReason()).contains(reason);
            assertThat(ex.getAction()).isNotBlank();
        });
    }

}
