package io.github.llmthrottle.actuate;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import io.github.llmthrottle.budget.Budgets;
import io.github.llmthrottle.client.DeploymentSettings;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.client.ThrottledClient;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.quota.TokenQuotas;
import io.github.llmthrottle.routing.CircuitState;
import io.github.llmthrottle.store.BucketKeys;
import io.github.llmthrottle.store.SharedBucketStore;
import io.github.llmthrottle.store.SharedBucketStore.SharedPause;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code llmthrottle} Actuator endpoint: every client and model's limits, local
 * buckets, what the provider last reported, pause, concurrency, queue, circuit and totals
 * (each deployment of a model as one more entry, {@code MODEL@DEPLOYMENT}), and what is
 * left of every token quota of a day or a month; and, with write access granted
 * ({@code management.endpoint.llmthrottle.access=unrestricted}), a runtime change of a
 * model's limits that the next admission follows. Never shows an API key or a header.
 */
@Endpoint(id = "llmthrottle", defaultAccess = Access.READ_ONLY)
public class LlmThrottleEndpoint {

    /**
     * The model name that the remaining path segments spell.
     * @param segments the segments, as the web endpoint split them
     * @return the segments joined with {@code /}
     */
    static String modelName(String[] segments) {
        return String.join("/", segments);
    }

    private final LlmThrottleRegistry registry;

    private final CircuitStateSource circuits;

    private final ShowTenants showTenants;

    private final @Nullable SharedBucketStore store;

    /**
     * Creates the endpoint.
     * @param registry the clients and models
     * @param circuits where circuit states come from
     */
    public LlmThrottleEndpoint(LlmThrottleRegistry registry, CircuitStateSource circuits) {
        this(registry, circuits, ShowTenants.NEVER);
    }

    /**
     * Creates the endpoint.
     * @param registry the clients and models
     * @param circuits where circuit states come from
     * @param showTenants when tenant ids are shown
     */
    public LlmThrottleEndpoint(LlmThrottleRegistry registry, CircuitStateSource circuits, ShowTenants showTenants) {
        this(registry, circuits, showTenants, null);
    }

    /**
     * Creates the endpoint, showing the pauses a shared bucket store shares.
     * @param registry the clients and models
     * @param circuits where circuit states come from
     * @param showTenants when tenant ids are shown
     * @param store the shared bucket store, {@code null} for none
     */
    public LlmThrottleEndpoint(LlmThrottleRegistry registry, CircuitStateSource circuits, ShowTenants showTenants,
            @Nullable SharedBucketStore store) {
        this.showTenants = showTenants;
        this.registry = registry;
        this.circuits = circuits;
        this.store = store;
    }

    /**
     * Every client and the models it has seen.
     * @param securityContext who asks (tenant ids are shown only as
     * {@code llm.throttle.show-tenants} allows)
     * @return the clients by name
     */
    @ReadOperation
    public ClientsDescriptor clients(SecurityContext securityContext) {
        Map<String, ClientDescriptor> clients = new LinkedHashMap<>();
        this.registry.getClients().forEach((name, client) -> {
            Map<String, ModelStateDescriptor> models = new LinkedHashMap<>();
            new TreeMap<>(client.getModels()).forEach((model, state) -> models.put(model, describe(state)));
            clients.put(name,
                    new ClientDescriptor(client.getSettings().provider().name().toLowerCase(Locale.ROOT), models));
        });
        boolean showTenants = this.showTenants.isShown(securityContext.getPrincipal());
        return new ClientsDescriptor(clients, quotas(showTenants), budgets(showTenants));
    }

    /**
     * One client and model, the model's name taken from every remaining path segment, so
     * that a name containing {@code /} ({@code meta-llama/llama-3.3-70b}) is addressed as
     * it is written.
     * @param client the client name
     * @param model the segments of the model name
     * @return its state, or {@code null} (404) when the client or model is unknown
     */
    @ReadOperation
    public @Nullable ModelStateDescriptor model(@Selector String client,
            @Selector(match = Match.ALL_REMAINING) String[] model) {
        return model(client, modelName(model));
    }

    /**
     * One client and model.
     * @param client the client name
     * @param model the model name
     * @return its state, or {@code null} when the client or model is unknown
     */
    public @Nullable ModelStateDescriptor model(String client, String model) {
        ThrottledModel found = find(client, model);
        return (found != null) ? describe(found) : null;
    }

    /**
     * Changes the limits of one client and model; the next admission uses them. Values
     * not given keep their current setting; {@code reset} restores the configured limits
     * first and ends a model-wide pause after a 429.
     * @param client the client name
     * @param model the segments of the model name
     * @param requestsPerMinute the new request limit, or {@code null} to keep it
     * @param inputTokensPerMinute the new input token limit, or {@code null} to keep it
     * @param outputTokensPerMinute the new output token limit, or {@code null} to keep it
     * @param maxConcurrency the new concurrency ceiling, or {@code null} to keep it
     * @param reset whether to start from the configured limits rather than the current
     * ones, and end a pause in force
     * @return the new state, or {@code null} (404) when the client or model is unknown
     * @throws InvalidEndpointRequestException (400) when a value is not positive
     */
    @WriteOperation
    public @Nullable ModelStateDescriptor updateLimits(@Selector String client,
            @Selector(match = Match.ALL_REMAINING) String[] model, @Nullable Long requestsPerMinute,
            @Nullable Long inputTokensPerMinute, @Nullable Long outputTokensPerMinute, @Nullable Integer maxConcurrency,
            @Nullable Boolean reset) {
        return updateLimits(client, modelName(model), requestsPerMinute, inputTokensPerMinute, outputTokensPerMinute,
                maxConcurrency, reset);
    }

    /**
     * Changes the limits of one client and model, as the write operation does.
     * @param client the client name
     * @param model the model name
     * @param requestsPerMinute the new request limit, or {@code null} to keep it
     * @param inputTokensPerMinute the new input token limit, or {@code null} to keep it
     * @param outputTokensPerMinute the new output token limit, or {@code null} to keep it
     * @param maxConcurrency the new concurrency ceiling, or {@code null} to keep it
     * @param reset whether to start from the configured limits
     * @return the new state, or {@code null} when the client or model is unknown
     * @throws InvalidEndpointRequestException when a value is not positive
     */
    public @Nullable ModelStateDescriptor updateLimits(String client, String model, @Nullable Long requestsPerMinute,
            @Nullable Long inputTokensPerMinute, @Nullable Long outputTokensPerMinute, @Nullable Integer maxConcurrency,
            @Nullable Boolean reset) {
        requirePositive("requestsPerMinute", requestsPerMinute, ModelLimits.MAX_PER_MINUTE);
        requirePositive("inputTokensPerMinute", inputTokensPerMinute, ModelLimits.MAX_PER_MINUTE);
        requirePositive("outputTokensPerMinute", outputTokensPerMinute, ModelLimits.MAX_PER_MINUTE);
        requirePositive("maxConcurrency", (maxConcurrency != null) ? maxConcurrency.longValue() : null,
                ModelLimits.MAX_LIMIT);
        ThrottledClient owner = this.registry.getClient(client);
        ThrottledModel found = (owner != null) ? owner.getModels().get(model) : null;
        if (owner == null || found == null) {
            return null;
        }
        ModelLimits current = Boolean.TRUE.equals(reset) ? configuredLimits(owner, found) : found.getLimiter().limits();
        found.getLimiter()
            .updateLimits(new ModelLimits(orElse(requestsPerMinute, current.requestsPerMinute()),
                    orElse(inputTokensPerMinute, current.inputTokensPerMinute()),
                    orElse(outputTokensPerMinute, current.outputTokensPerMinute()),
                    orElse(maxConcurrency, current.maxConcurrency()), current.utilization()));
        if (Boolean.TRUE.equals(reset)) {
            found.getLimiter().endPause();
        }
        return describe(found);
    }

    /**
     * The configured limits of a model, or of a deployment ({@code MODEL@DEPLOYMENT}).
     */
    private static ModelLimits configuredLimits(ThrottledClient client, ThrottledModel model) {
        DeploymentSettings deployment = model.getDeployment();
        return (deployment != null) ? deployment.limits() : client.getSettings().limitsOf(model.getName());
    }

    /**
     * The model {@code model} of {@code client}, if the client is configured and the
     * model configured or seen.
     * @param client the client name
     * @param model the model name
     * @return the model, or {@code null}
     */
    @Nullable ThrottledModel find(String client, String model) {
        ThrottledClient found = this.registry.getClient(client);
        return (found != null) ? found.getModels().get(model) : null;
    }

    private ModelStateDescriptor describe(ThrottledModel model) {
        LimiterState state = model.getLimiter().state();
        // a pause shared across the fleet shows as every instance sees it: the store's
        SharedPause shared = (this.store != null)
                ? this.store.sharedPause(BucketKeys.model(model.getLimiter().client(), model.getLimiter().model()))
                : null;
        return new ModelStateDescriptor(LimitsDescriptor.of(state.limits(), null),
                LimitsDescriptor.of(state.effectiveLimits(), state.tokensPerMinute()),
                new AvailableDescriptor(state.available().requests(), state.available().inputTokens(),
                        state.available().outputTokens(), state.available().tokens()),
                ServerDescriptor.of(state.server()), (shared != null) ? shared.until() : state.pausedUntil(),
                (shared != null) ? shared.pausedBy() : null, (shared != null) ? shared.pausedAt() : null,
                state.inFlight(), state.concurrencyLimit(),
                new QueuedDescriptor(state.queued().realtime(), state.queued().normal(), state.queued().batch(),
                        state.queued().total()),
                this.circuits.stateOf(model), TotalsDescriptor.of(model.getTotals()), model.getContextWindow(),
                deployments(model), model.getDeploymentOf());
    }

    private static @Nullable List<String> deployments(ThrottledModel model) {
        List<ThrottledModel> deployments = model.getDeployments();
        return deployments.isEmpty() ? null : deployments.stream().map(ThrottledModel::getName).toList();
    }

    private static void requirePositive(String field, @Nullable Long value, long max) {
        if (value != null && value <= 0) {
            throw new InvalidEndpointRequestException(field + " must be positive (a limit of at least 1), was " + value,
                    field + " must be positive");
        }
        if (value != null && value > max) {
            throw new InvalidEndpointRequestException(field + " must be at most " + max + ", was " + value,
                    field + " must be at most " + max);
        }
    }

    private static <T> @Nullable T orElse(@Nullable T value, @Nullable T current) {
        return (value != null) ? value : current;
    }

    /**
     * What is left of every token quota of a day or a month, per client and model, client
     * and tenant; empty without quotas.
     */
    private List<QuotaDescriptor> quotas(boolean showTenants) {
        TokenQuotas quotas = this.registry.getQuotas();
        if (quotas.isEmpty()) {
            return List.of();
        }
        return quotas.states(configuredModels())
            .stream()
            .map((state) -> QuotaDescriptor.of(state, showTenants))
            .toList();
    }

    /**
     * What is left of every budget in money of a day or a month; empty without budgets.
     */
    private List<BudgetDescriptor> budgets(boolean showTenants) {
        Budgets budgets = this.registry.getBudgets();
        if (budgets.isEmpty()) {
            return List.of();
        }
        return budgets.states(configuredModels())
            .stream()
            .map((state) -> BudgetDescriptor.of(state, showTenants))
            .toList();
    }

    /**
     * The models of each client, without deployments: a model's deployments count against
     * the model's quotas and budgets, with none of their own.
     */
    private Map<String, List<String>> configuredModels() {
        Map<String, List<String>> models = new LinkedHashMap<>();
        this.registry.getClients()
            .forEach((name, client) -> models.put(name,
                    new TreeMap<>(client.getModels()).values()
                        .stream()
                        .filter((model) -> model.getDeploymentOf() == null)
                        .map(ThrottledModel::getName)
                        .toList()));
        return models;
    }

    /**
     * Every client, by name, and the token quotas.
     *
     * @param clients the clients
     * @param quotas what is left of every token quota of a day or a month (of a model, a
     * client or a tenant); empty without quotas
     * @param budgets what is left of every budget in money of a day or a month; empty
     * without budgets
     */
    public record ClientsDescriptor(Map<String, ClientDescriptor> clients, List<QuotaDescriptor> quotas,
            List<BudgetDescriptor> budgets) implements OperationResponseBody {
    }

    /**
     * One client: its provider and the models it has seen.
     *
     * @param provider the wire dialect ({@code anthropic}, {@code openai}, {@code ollama}
     * or {@code generic})
     * @param models the models by name
     */
    public record ClientDescriptor(String provider, Map<String, ModelStateDescriptor> models) {
    }

    /**
     * The state of one client and model ({@code MODEL_STATE}).
     *
     * @param limits the configured (or runtime-changed) limits
     * @param effectiveLimits the limits that govern now: lowered by any lower limit the
     * provider reported, plus a combined {@code tokensPerMinute} learned from the
     * provider
     * @param available what the local buckets hold now ({@code null} for a dimension
     * without a limit)
     * @param server the last rate-limit values the provider reported, or {@code null}
     * @param pausedUntil until when calls are held after a 429, or {@code null}; with a
     * shared store, the pause every instance sees, in the store's time
     * @param pausedBy with a shared store, the instance that paused the model, or
     * {@code null}
     * @param pausedAt with a shared store, when that instance paused it, or {@code null}
     * @param inFlight attempts admitted and not yet finished
     * @param concurrencyLimit the adaptive concurrency limit, which every model has
     * (max-concurrency is its ceiling)
     * @param queued calls waiting for admission, per priority
     * @param circuit the model's circuit
     * @param totals totals since startup
     * @param contextWindow the model's context window in tokens, or {@code null} when
     * none is configured
     * @param deployments the names ({@code MODEL@DEPLOYMENT}) under which the model's
     * deployments are shown, each with a state of its own, or {@code null} when it has
     * none
     * @param deploymentOf the model this is a deployment of, or {@code null} for a model
     */
    public record ModelStateDescriptor(LimitsDescriptor limits, LimitsDescriptor effectiveLimits,
            AvailableDescriptor available, @Nullable ServerDescriptor server, @Nullable Instant pausedUntil,
            @Nullable String pausedBy, @Nullable Instant pausedAt, int inFlight, @Nullable Integer concurrencyLimit,
            QueuedDescriptor queued, CircuitState circuit, TotalsDescriptor totals, @Nullable Long contextWindow,
            @Nullable List<String> deployments, @Nullable String deploymentOf) implements OperationResponseBody {
    }

    /**
     * Limits of one model; {@code null} means no local limit.
     *
     * @param requestsPerMinute requests per minute
     * @param inputTokensPerMinute input tokens per minute
     * @param outputTokensPerMinute output tokens per minute
     * @param maxConcurrency ceiling of the adaptive concurrency limit
     * @param tokensPerMinute combined tokens per minute learned from the provider
     * (effective limits only)
     */
    public record LimitsDescriptor(@Nullable Long requestsPerMinute, @Nullable Long inputTokensPerMinute,
            @Nullable Long outputTokensPerMinute, @Nullable Integer maxConcurrency, @Nullable Long tokensPerMinute) {

        static LimitsDescriptor of(ModelLimits limits, @Nullable Long tokensPerMinute) {
            return new LimitsDescriptor(limits.requestsPerMinute(), limits.inputTokensPerMinute(),
                    limits.outputTokensPerMinute(), limits.maxConcurrency(), tokensPerMinute);
        }

    }

    /**
     * What the local buckets hold now; negative when calls used more than they reserved.
     *
     * @param requests requests
     * @param inputTokens input tokens
     * @param outputTokens output tokens
     * @param tokens combined tokens (only with a combined limit learned from the
     * provider)
     */
    public record AvailableDescriptor(@Nullable Long requests, @Nullable Long inputTokens, @Nullable Long outputTokens,
            @Nullable Long tokens) {
    }

    /**
     * Calls waiting for admission.
     *
     * @param realtime waiting {@code REALTIME} calls
     * @param normal waiting {@code NORMAL} calls
     * @param batch waiting {@code BATCH} calls
     * @param total all waiting calls
     */
    public record QueuedDescriptor(int realtime, int normal, int batch, int total) {
    }

    /**
     * Totals since startup.
     *
     * @param calls logical calls
     * @param attempts HTTP attempts, retries included
     * @param succeeded calls that returned a response
     * @param failed calls that failed
     * @param rateLimited 429 responses
     * @param overloaded 529 and overloaded 503 responses
     * @param retries retries
     * @param fallbacks calls routed away from this model
     * @param rejected calls refused by admission or the circuit
     * @param inputTokens input tokens the provider counted against its limits (cache
     * writes included, Anthropic's cache reads not)
     * @param outputTokens output tokens the provider counted
     * @param cacheReadTokens input tokens read from the prompt cache
     * @param cacheWriteTokens input tokens written to the prompt cache (part of
     * {@code inputTokens})
     * @param cost what the calls cost in {@code llm.throttle.currency}, from the model's
     * prices; omitted while nothing was spent
     */
    public record TotalsDescriptor(long calls, long attempts, long succeeded, long failed, long rateLimited,
            long overloaded, long retries, long fallbacks, long rejected, long inputTokens, long outputTokens,
            long cacheReadTokens, long cacheWriteTokens, @Nullable BigDecimal cost) {

        static TotalsDescriptor of(ModelTotals model) {
            ModelTotals.Snapshot totals = model.snapshot();
            BigDecimal cost = model.cost();
            return new TotalsDescriptor(totals.calls(), totals.attempts(), totals.succeeded(), totals.failed(),
                    totals.rateLimited(), totals.overloaded(), totals.retries(), totals.fallbacks(), totals.rejected(),
                    totals.inputTokens(), totals.outputTokens(), totals.cacheReadTokens(), totals.cacheWriteTokens(),
                    (cost.signum() != 0) ? cost : null);
        }

    }

}
