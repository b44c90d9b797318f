package io.github.llmthrottle.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ThrottledClient;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.quota.TokenQuotas;
import io.github.llmthrottle.quota.TokenQuotas.QuotaState;
import io.github.llmthrottle.routing.CircuitState;
import io.github.llmthrottle.time.TimeSource;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code llmThrottle} health component: always {@code UP}, with one entry per client
 * and model in its details saying whether calls flow ({@link ModelHealthState}), when the
 * provider last answered 429 and 529, until when the model is paused, and until when its
 * token quota of the day or month (its own or its client's) is exhausted. A tenant's
 * exhausted quota concerns that tenant only: it is listed under
 * {@code exhaustedTenantQuotas} and changes no model's state. Throttling is normal
 * operation, so it never turns health {@code DOWN}; put it in the readiness group, not in
 * liveness.
 */
public final class LlmThrottleHealthIndicator implements HealthIndicator {

    private final LlmThrottleRegistry registry;

    private final ProviderSignals signals;

    private final CircuitStateSource circuits;

    private final Duration window;

    private final TimeSource timeSource;

    private final ShowTenants showTenants;

    /**
     * Creates the health indicator.
     * @param registry the clients and models
     * @param signals the provider's recent answers
     * @param circuits where circuit states come from
     * @param window how long a 429 or 529 keeps a model reported as throttled or
     * overloaded
     * @param timeSource the time source whose wall clock tells how recent a signal is
     */
    public LlmThrottleHealthIndicator(LlmThrottleRegistry registry, ProviderSignals signals,
            CircuitStateSource circuits, Duration window, TimeSource timeSource) {
        this(registry, signals, circuits, window, timeSource, ShowTenants.NEVER);
    }

    /**
     * Creates the health indicator.
     * @param registry the clients and models
     * @param signals the provider's recent answers
     * @param circuits where circuit states come from
     * @param window how long a 429 or 529 keeps a model reported as throttled or
     * overloaded
     * @param timeSource the time source whose wall clock tells how recent a signal is
     * @param showTenants whether tenant ids are shown (only {@code ALWAYS} shows them
     * here: a health indicator cannot tell who asks)
     */
    public LlmThrottleHealthIndicator(LlmThrottleRegistry registry, ProviderSignals signals,
            CircuitStateSource circuits, Duration window, TimeSource timeSource, ShowTenants showTenants) {
        this.showTenants = showTenants;
        this.registry = registry;
        this.signals = signals;
        this.circuits = circuits;
        this.window = window;
        this.timeSource = timeSource;
    }

    @Override
    public Health health() {
        Health.Builder health = Health.up();
        Instant now = this.timeSource.instant();
        for (ThrottledClient client : this.registry.getClients().values()) {
            Map<String, Object> models = new LinkedHashMap<>();
            new TreeMap<>(client.getModels())
                .forEach((name, model) -> models.put(name, details(client.getName(), model, now)));
            health.withDetail(client.getName(), models);
        }
        Map<String, String> tenants = exhaustedTenantQuotas();
        if (!tenants.isEmpty()) {
            if (this.showTenants == ShowTenants.ALWAYS) {
                health.withDetail("exhaustedTenantQuotas", tenants);
            }
            else {
                // tenant ids may name customers: how many, not who
                health.withDetail("exhaustedTenantQuotaCount", tenants.size());
            }
        }
        return health.build();
    }

    private Map<String, Object> details(String client, ThrottledModel model, Instant now) {
        LimiterState limiter = model.getLimiter().state();
        ProviderSignals.Snapshot signals = this.signals.of(client, model.getName());
        CircuitState circuit = this.circuits.stateOf(model);
        // a deployment counts against its model's quota
        String quotaModel = (model.getDeploymentOf() != null) ? model.getDeploymentOf() : model.getName();
        TokenQuotas quotas = this.registry.getQuotas();
        Instant quotaExhaustedUntil = quotas.isEmpty() ? null
                : exhaustedUntil(quotas.statesOfModel(client, quotaModel), quotas.statesOfClient(client));
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("state", state(limiter, signals, circuit, quotaExhaustedUntil != null, now));
        details.put("circuit", circuit);
        putIfSet(details, "quotaExhaustedUntil", quotaExhaustedUntil);
        putIfSet(details, "last429", signals.last429());
        putIfSet(details, "last529", signals.last529());
        putIfSet(details, "lastCredentialsRejected", signals.lastCredentialsRejected());
        putIfSet(details, "pausedUntil", limiter.pausedUntil());
        details.put("queued", limiter.queued().total());
        details.put("inFlight", limiter.inFlight());
        return details;
    }

    ModelHealthState state(LimiterState limiter, ProviderSignals.Snapshot signals, CircuitState circuit,
            boolean quotaExhausted, Instant now) {
        if (signals.credentialsRejected()) {
            return ModelHealthState.CREDENTIALS_REJECTED;
        }
        if (circuit != CircuitState.CLOSED) {
            return ModelHealthState.CIRCUIT_OPEN;
        }
        if (quotaExhausted) {
            return ModelHealthState.QUOTA_EXHAUSTED;
        }
        if (limiter.pausedUntil() != null || recent(signals.last429(), now)) {
            return ModelHealthState.PROVIDER_THROTTLING;
        }
        if (recent(signals.last529(), now)) {
            return ModelHealthState.PROVIDER_OVERLOADED;
        }
        if (limiter.queued().total() > 0) {
            return ModelHealthState.QUEUEING;
        }
        return ModelHealthState.OK;
    }

    /**
     * Until when calls fail for want of quota: the latest reset of the exhausted quotas
     * (each must have reset), or {@code null} when none is exhausted.
     */
    @SafeVarargs
    private static @Nullable Instant exhaustedUntil(List<QuotaState>... quotas) {
        Instant until = null;
        for (List<QuotaState> list : quotas) {
            for (QuotaState quota : list) {
                if (quota.exhausted() && (until == null || quota.resetsAt().isAfter(until))) {
                    until = quota.resetsAt();
                }
            }
        }
        return until;
    }

    /** Each tenant with an exhausted quota and until when. */
    private Map<String, String> exhaustedTenantQuotas() {
        TokenQuotas quotas = this.registry.getQuotas();
        Map<String, String> exhausted = new TreeMap<>();
        if (!quotas.isEmpty()) {
            for (String tenant : quotas.tenants()) {
                Instant until = exhaustedUntil(quotas.statesOfTenant(tenant));
                if (until != null) {
                    exhausted.put(tenant, until.toString());
                }
            }
        }
        return exhausted;
    }

    private boolean recent(@Nullable Instant signal, Instant now) {
        return signal != null && !signal.plus(this.window).isBefore(now);
    }

    private static void putIfSet(Map<String, Object> details, String name, @Nullable Instant value) {
        if (value != null) {
            details.put(name, value.toString());
        }
    }

}
