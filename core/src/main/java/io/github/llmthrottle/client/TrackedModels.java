package io.github.llmthrottle.client;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.routing.CircuitSettings;
import io.github.llmthrottle.routing.CircuitStore;
import io.github.llmthrottle.time.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * The run-time state of every model one {@link ThrottledClient} tracks: each configured
 * model and its deployments, created up front, and the models requests name without their
 * being configured, created on first use and forgotten, least recently used first, beyond
 * {@code llm.throttle.max-tracked-names}.
 */
final class TrackedModels {

    private final ClientSettings settings;

    private final LimiterRegistry limiters;

    private final CircuitSettings circuitSettings;

    private final CircuitStore circuits;

    private final TimeSource time;

    /** Told of each model that was forgotten, once its limiter is. */
    private final Consumer<ThrottledModel> onForgotten;

    private final Map<String, ThrottledModel> models = new ConcurrentHashMap<>();

    /** Models named in requests but not configured, most recently used last. */
    private final LinkedHashMap<String, ThrottledModel> otherModels = new LinkedHashMap<>(16, 0.75f, true);

    private final ReentrantLock otherModelsLock = new ReentrantLock();

    TrackedModels(ClientSettings settings, LimiterRegistry limiters, CircuitSettings circuitSettings,
            CircuitStore circuits, TimeSource time, Consumer<ThrottledModel> onForgotten) {
        this.settings = settings;
        this.limiters = limiters;
        this.circuitSettings = circuitSettings;
        this.circuits = circuits;
        this.time = time;
        this.onForgotten = onForgotten;
        // every configured model (and its deployments) up front, so that newModel never
        // runs inside a computeIfAbsent of the same map
        settings.models().keySet().forEach((model) -> this.models.put(model, newModel(model)));
    }

    /**
     * Every model tracked now, the configured ones first.
     * @return the models by name
     */
    Map<String, ThrottledModel> all() {
        Map<String, ThrottledModel> all = new LinkedHashMap<>(this.models);
        this.otherModelsLock.lock();
        try {
            all.putAll(this.otherModels);
        }
        finally {
            this.otherModelsLock.unlock();
        }
        return Collections.unmodifiableMap(all);
    }

    /**
     * The state of {@code name}, created on first use (see
     * {@link ThrottledClient#model(String)}).
     * @param name the model name
     * @return its state
     */
    ThrottledModel model(String name) {
        // a deployment by its qualified name first: events name the deployment
        ThrottledModel known = this.models.get(name);
        if (known != null) {
            return known;
        }
        String model = this.settings.configuredModelOf(name);
        ThrottledModel configured = this.models.get(model);
        if (configured != null) {
            return configured;
        }
        if (this.settings.models().containsKey(model)) {
            return this.models.computeIfAbsent(model, this::newModel);
        }
        List<ThrottledModel> forgotten = new ArrayList<>();
        ThrottledModel other;
        this.otherModelsLock.lock();
        try {
            other = this.otherModels.get(model);
            if (other == null) {
                other = newModel(model);
                this.otherModels.put(model, other);
                forgetIdleOtherModels(model, forgotten);
            }
        }
        finally {
            this.otherModelsLock.unlock();
        }
        for (ThrottledModel idle : forgotten) {
            this.limiters.forget(this.settings.name(), idle.name);
            this.onForgotten.accept(idle);
        }
        return other;
    }

    /**
     * The state of {@code name} when it is tracked, without creating it or counting as a
     * use of it (see {@link ThrottledClient#findModel(String)}).
     * @param name the model name, or one of a configured model's other names
     * @return its state, or {@code null} when the model is not tracked
     */
    @Nullable ThrottledModel find(String name) {
        // a deployment by its qualified name first: events name the deployment
        ThrottledModel known = this.models.get(name);
        if (known != null) {
            return known;
        }
        String model = this.settings.configuredModelOf(name);
        ThrottledModel configured = this.models.get(model);
        if (configured != null) {
            return configured;
        }
        this.otherModelsLock.lock();
        try {
            // values() in order: get() would count as a use of an access-ordered map
            for (ThrottledModel other : this.otherModels.values()) {
                if (other.name.equals(model)) {
                    return other;
                }
            }
            return null;
        }
        finally {
            this.otherModelsLock.unlock();
        }
    }

    private ThrottledModel newModel(String name) {
        List<ThrottledModel> deployments = new ArrayList<>();
        this.settings.deploymentsOf(name).forEach((deploymentName, deployment) -> {
            String qualified = DeploymentSettings.qualifiedName(name, deploymentName);
            ThrottledModel state = new ThrottledModel(qualified, this.limiters.limiter(this.settings.name(), qualified),
                    this.circuits.circuit(this.settings.name(), qualified, this.circuitSettings, this.time), null, name,
                    deployment, List.of());
            // kept with the models: events, the endpoint, health and metrics find it by
            // its qualified name
            this.models.put(qualified, state);
            deployments.add(state);
        });
        return new ThrottledModel(name, this.limiters.limiter(this.settings.name(), name),
                this.circuits.circuit(this.settings.name(), name, this.circuitSettings, this.time),
                this.settings.contextWindowOf(name), null, null, deployments);
    }

    /**
     * Forgets the least recently used models that are not configured beyond
     * {@code llm.throttle.max-tracked-names}, except those with calls in flight or
     * waiting: a name a request made up cannot grow memory, the endpoint or the meters
     * without bound ({@code keep} is the one just added).
     */
    private void forgetIdleOtherModels(String keep, List<ThrottledModel> forgotten) {
        Iterator<ThrottledModel> eldest = this.otherModels.values().iterator();
        while (this.otherModels.size() > this.limiters.options().maxTrackedNames() && eldest.hasNext()) {
            ThrottledModel model = eldest.next();
            if (model.name.equals(keep)) {
                continue;
            }
            LimiterState state = model.limiter.state();
            if (state.inFlight() == 0 && state.queued().total() == 0) {
                eldest.remove();
                forgotten.add(model);
            }
        }
    }

}
