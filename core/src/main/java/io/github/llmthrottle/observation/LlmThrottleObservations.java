package io.github.llmthrottle.observation;

import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Where the call pipeline makes its observations: the application's
 * {@link ObservationRegistry} and the conventions that shape them (the defaults unless
 * the application supplies its own). With {@link #NONE}, or a registry nobody listens to,
 * every observation is {@link Observation#NOOP} and no context is built.
 */
public final class LlmThrottleObservations {

    /** No observations: what a client built without an observation registry uses. */
    public static final LlmThrottleObservations NONE = new LlmThrottleObservations(ObservationRegistry.NOOP, null,
            null);

    private static final LlmThrottleCallObservationConvention DEFAULT_CALL = new DefaultLlmThrottleCallObservationConvention();

    private static final LlmThrottleAttemptObservationConvention DEFAULT_ATTEMPT = new DefaultLlmThrottleAttemptObservationConvention();

    private final ObservationRegistry registry;

    private final @Nullable LlmThrottleCallObservationConvention callConvention;

    private final @Nullable LlmThrottleAttemptObservationConvention attemptConvention;

    /**
     * Creates the observations of a registry.
     * @param registry the registry observations go to
     * @param callConvention the application's convention for calls, or {@code null} for
     * the default
     * @param attemptConvention the application's convention for attempts, or {@code null}
     * for the default
     */
    public LlmThrottleObservations(ObservationRegistry registry,
            @Nullable LlmThrottleCallObservationConvention callConvention,
            @Nullable LlmThrottleAttemptObservationConvention attemptConvention) {
        this.registry = registry;
        this.callConvention = callConvention;
        this.attemptConvention = attemptConvention;
    }

    /**
     * The observations of a registry, shaped by the default conventions.
     * @param registry the registry observations go to
     * @return the observations
     */
    public static LlmThrottleObservations of(ObservationRegistry registry) {
        return new LlmThrottleObservations(registry, null, null);
    }

    /**
     * Whether anyone listens: {@code false} for {@link #NONE} and for a registry without
     * handlers, when no observation is worth preparing.
     * @return whether observations may be made
     */
    public boolean isObserving() {
        return !this.registry.isNoop();
    }

    /**
     * The observation of a logical call, not started; its parent is the current
     * observation (Spring's {@code http.client.requests} around a {@code RestClient}'s
     * interceptors, for one).
     * @param context creates the context, called only when someone listens
     * @return the observation, {@link Observation#NOOP} when nobody listens
     */
    public Observation call(Supplier<LlmThrottleCallObservationContext> context) {
        return LlmThrottleObservationDocumentation.CALL.observation(this.callConvention, DEFAULT_CALL, context,
                this.registry);
    }

    /**
     * The observation of one HTTP attempt, not started.
     * @param context creates the context, called only when someone listens
     * @param call the observation of the attempt's call, its parent
     * @return the observation, {@link Observation#NOOP} when nobody listens
     */
    public Observation attempt(Supplier<LlmThrottleAttemptObservationContext> context, Observation call) {
        Observation attempt = LlmThrottleObservationDocumentation.ATTEMPT.observation(this.attemptConvention,
                DEFAULT_ATTEMPT, context, this.registry);
        if (!call.isNoop()) {
            // explicitly: a stream's attempt ends on whichever thread ends the stream
            attempt.parentObservation(call);
        }
        return attempt;
    }

}
