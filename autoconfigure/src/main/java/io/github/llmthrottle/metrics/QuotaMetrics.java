package io.github.llmthrottle.metrics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.RejectionReason;
import io.github.llmthrottle.client.ClientSettings;
import io.github.llmthrottle.client.ThrottleObserver;
import io.github.llmthrottle.client.ThrottleSettings;
import io.github.llmthrottle.quota.QuotaWindow;
import io.github.llmthrottle.quota.TokenQuotas;
import io.github.llmthrottle.quota.TokenQuotas.QuotaState;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import org.jspecify.annotations.Nullable;

/**
 * Gauges of the token quotas of a day or a month ({@link TokenQuotas}):
 * {@code llm.quota.used} (the tokens counted in the window in force, calls in flight at
 * their estimate; back to 0 when the window resets) and {@code llm.quota.limit}, each
 * tagged {@code client}, {@code model}, {@code tenant}, {@code scope} ({@code model},
 * {@code client} or {@code tenant}) and {@code window} ({@code day} or {@code month}); a
 * tag a quota does not name (the model of a client's quota, the client and model of a
 * tenant's, the tenant of a model's or a client's) is {@code all}, since the quota counts
 * all of them.
 *
 * <p>
 * Bounded like the quotas themselves: the configured models get their gauges at startup,
 * a model first seen later on its first call, and the tenants are those
 * {@link TokenQuotas#tenants()} tracks (those with a quota of their own and at most
 * {@code llm.throttle.max-tracked-names} seen lately), a forgotten tenant's gauges
 * removed when the next call ends. An observer, so it learns of models and tenants from
 * the calls.
 */
public final class QuotaMetrics implements ThrottleObserver {

    static final String USED = "llm.quota.used";

    static final String LIMIT = "llm.quota.limit";

    private static final String ALL = "all";

    private final MeterRegistry registry;

    private final TokenQuotas quotas;

    /** The models whose quotas have gauges, by client. */
    private final Map<String, Set<String>> models = new ConcurrentHashMap<>();

    private final ReentrantLock tenantsLock = new ReentrantLock();

    /** The gauges of each tenant's quotas. */
    private final Map<String, List<Meter>> tenants = new ConcurrentHashMap<>();

    private volatile long tenantsVersion = -1;

    /**
     * Creates the gauges of the quotas of every configured client and model, and of the
     * tenants with a quota of their own.
     * @param registry where meters go
     * @param settings the configured clients and models
     * @param quotas the quotas
     */
    public QuotaMetrics(MeterRegistry registry, ThrottleSettings settings, TokenQuotas quotas) {
        this.registry = registry;
        this.quotas = quotas;
        if (!quotas.isEmpty()) {
            for (ClientSettings client : settings.clients().values()) {
                Set<String> models = this.models.computeIfAbsent(client.name(),
                        (name) -> ConcurrentHashMap.newKeySet());
                register(quotas.statesOfClient(client.name()));
                client.models().keySet().forEach((model) -> {
                    models.add(model);
                    registerModel(client.name(), model);
                });
            }
            syncTenants();
        }
    }

    @Override
    public void onCall(String client, String model, CallOutcome outcome, Duration duration) {
        seen(client, model);
    }

    @Override
    public void onRejected(String client, String model, RejectionReason rejection, LlmThrottleException exception) {
        seen(client, model);
    }

    @Override
    public void onModelForgotten(String client, String model) {
        Set<String> models = this.models.get(client);
        if (models != null && models.remove(model)) {
            for (Meter meter : this.registry.getMeters()) {
                Meter.Id id = meter.getId();
                if (id.getName().startsWith("llm.quota.") && "model".equals(id.getTag("scope"))
                        && client.equals(id.getTag("client")) && model.equals(id.getTag("model"))) {
                    this.registry.remove(meter);
                }
            }
        }
    }

    /**
     * Gives a model first seen in a call the gauges of its quota, and the tenants tracked
     * since the last call theirs.
     */
    private void seen(String client, String model) {
        if (this.quotas.isEmpty()) {
            return;
        }
        Set<String> models = this.models.computeIfAbsent(client, (name) -> ConcurrentHashMap.newKeySet());
        if (!models.contains(model) && models.add(model)) {
            registerModel(client, model);
        }
        if (this.tenantsVersion != this.quotas.tenantsVersion()) {
            syncTenants();
        }
    }

    private void registerModel(String client, String model) {
        register(this.quotas.statesOfModel(client, model));
    }

    private void syncTenants() {
        this.tenantsLock.lock();
        try {
            long version = this.quotas.tenantsVersion();
            Set<String> current = new HashSet<>(this.quotas.tenants());
            for (String tenant : new ArrayList<>(this.tenants.keySet())) {
                if (!current.contains(tenant)) {
                    List<Meter> meters = this.tenants.remove(tenant);
                    if (meters != null) {
                        meters.forEach(this.registry::remove);
                    }
                }
            }
            for (String tenant : current) {
                if (!this.tenants.containsKey(tenant)) {
                    this.tenants.put(tenant, register(this.quotas.statesOfTenant(tenant)));
                }
            }
            this.tenantsVersion = version;
        }
        finally {
            this.tenantsLock.unlock();
        }
    }

    private List<Meter> register(List<QuotaState> states) {
        List<Meter> meters = new ArrayList<>(2 * states.size());
        for (QuotaState state : states) {
            String scope = state.scope();
            @Nullable String client = state.client();
            @Nullable String model = state.model();
            @Nullable String tenant = state.tenant();
            QuotaWindow window = state.window();
            Tags tags = Tags.of("client", orAll(client), "model", orAll(model), "tenant", orAll(tenant), "scope", scope,
                    "window", window.tag());
            meters.add(Gauge.builder(USED, this.quotas, (quotas) -> quotas.used(scope, client, model, tenant, window))
                .description("Tokens counted against a quota of a day or a month in the window in force")
                .baseUnit("tokens")
                .tags(tags)
                .strongReference(true)
                .register(this.registry));
            meters.add(Gauge.builder(LIMIT, state::limit)
                .description("A token quota of a day or a month")
                .baseUnit("tokens")
                .tags(tags)
                .strongReference(true)
                .register(this.registry));
        }
        return meters;
    }

    private static String orAll(@Nullable String name) {
        return (name != null) ? name : ALL;
    }

}
