package io.github.llmthrottle.routing;

import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;

import io.github.llmthrottle.CircuitOpenException;
import io.github.llmthrottle.provider.LogText;
import io.github.llmthrottle.retry.Classification.Outcome;
import io.github.llmthrottle.time.Nanos;
import io.github.llmthrottle.time.TimeSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The circuit breaker of one client and model, a Resilience4j-style state machine over
 * HTTP attempts.
 * <ul>
 * <li>{@link CircuitState#CLOSED}: every attempt goes through. An attempt that ends
 * {@linkplain #isFailure(Outcome) as a failure} (529/overloaded, any other 5xx, 408, an
 * I/O error) adds to a count of consecutive failures; any answer of the server that is
 * not a failure (success, 4xx, quota) resets it; a 429 rate limit does neither (the
 * provider is up, we are only too fast, and the limiter deals with that). When the count
 * reaches {@link CircuitSettings#failureThreshold()} the circuit opens.</li>
 * <li>{@link CircuitState#OPEN}: {@link #acquire()} fails fast with
 * {@link CircuitOpenException} whose {@code retryAfter} is the rest of
 * {@link CircuitSettings#openWait()}. When the wait is over the circuit is half-open
 * (there is no timer: the change happens when the circuit is next looked at).</li>
 * <li>{@link CircuitState#HALF_OPEN}: up to {@link CircuitSettings#halfOpenProbes()}
 * attempts are let through at once as probes, others fail fast as if open. The first
 * probe that fails opens the circuit again for a new wait; once that many probes have
 * succeeded the circuit closes. A probe that ends without a verdict (a 429, or no attempt
 * at all because admission refused it) only frees its place.</li>
 * </ul>
 * Outcomes of attempts that started before the last change of state are ignored, so a
 * burst of late failures cannot reopen a circuit that probes have just closed. Time comes
 * from the monotonic clock of the injected {@link TimeSource}. Thread-safe; the lock is
 * never held while waiting.
 *
 * <p>
 * With a {@link SharedCircuit} (a shared {@link CircuitStore}) the state lives in the
 * store and is the same on every instance: the shared circuit decides, and the local
 * state machine above only while the shared one cannot be reached (it then starts from
 * what this instance alone recorded in such times).
 */
public final class ModelCircuit {

    private static final Log logger = LogFactory.getLog(ModelCircuit.class);

    private final String client;

    private final String model;

    private final CircuitSettings settings;

    private final TimeSource timeSource;

    private final @Nullable SharedCircuit shared;

    private final ReentrantLock lock = new ReentrantLock();

    // Guarded by lock.

    private CircuitState state = CircuitState.CLOSED;

    private long epoch;

    private int consecutiveFailures;

    /**
     * While open, when the open wait ends, in nanoseconds of the time source's monotonic
     * clock.
     */
    private long openUntil = Long.MIN_VALUE;

    private int probesInFlight;

    private int probesSucceeded;

    /**
     * Creates a closed circuit.
     * @param client the client name, for exceptions
     * @param model the model name, for exceptions
     * @param settings when to open and how to probe
     * @param timeSource the time source
     */
    public ModelCircuit(String client, String model, CircuitSettings settings, TimeSource timeSource) {
        this(client, model, settings, timeSource, null);
    }

    /**
     * Creates a circuit whose state is shared, when {@code shared} is given.
     * @param client the client name, for exceptions
     * @param model the model name, for exceptions
     * @param settings when to open and how to probe
     * @param timeSource the time source
     * @param shared the shared state, {@code null} for this JVM's alone
     */
    public ModelCircuit(String client, String model, CircuitSettings settings, TimeSource timeSource,
            @Nullable SharedCircuit shared) {
        this.client = client;
        this.model = model;
        this.settings = settings;
        this.timeSource = timeSource;
        this.shared = shared;
    }

    /**
     * Whether an attempt with this outcome counts as a failure towards opening the
     * circuit.
     * @param outcome the outcome of an attempt
     * @return {@code true} for overloaded, server errors, 408 and I/O errors
     */
    public static boolean isFailure(Outcome outcome) {
        return switch (outcome) {
            case OVERLOADED, SERVER_ERROR, TIMEOUT, IO_ERROR -> true;
            default -> false;
        };
    }

    /**
     * The state now.
     * @return the state ({@link CircuitState#HALF_OPEN} as soon as the open wait is over)
     */
    public CircuitState state() {
        SharedCircuit.View view = sharedView();
        if (view != null) {
            return view.state();
        }
        this.lock.lock();
        try {
            advance(this.timeSource.nanoTime());
            return this.state;
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * Whether an attempt would be let through now, without taking a place.
     * @return {@code false} when open, or half-open with every probe place taken
     */
    public boolean isCallPermitted() {
        SharedCircuit.View view = sharedView();
        if (view != null) {
            return view.state() == CircuitState.CLOSED || (view.state() == CircuitState.HALF_OPEN && view.probeFree());
        }
        this.lock.lock();
        try {
            advance(this.timeSource.nanoTime());
            return switch (this.state) {
                case CLOSED -> true;
                case OPEN -> false;
                case HALF_OPEN -> this.probesInFlight < this.settings.halfOpenProbes();
            };
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * How long until an open circuit lets probes through.
     * @return the rest of the open wait, or {@code null} when the circuit is not open
     */
    public @Nullable Duration remainingOpenTime() {
        SharedCircuit.View view = sharedView();
        if (view != null) {
            return view.remainingOpen();
        }
        this.lock.lock();
        try {
            long now = this.timeSource.nanoTime();
            advance(now);
            return (this.state == CircuitState.OPEN) ? restOfOpenWait(now) : null;
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * The consecutive failures counted while closed.
     * @return the count
     */
    public int consecutiveFailures() {
        SharedCircuit.View view = sharedView();
        if (view != null) {
            return view.consecutiveFailures();
        }
        this.lock.lock();
        try {
            return this.consecutiveFailures;
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * Lets one attempt through, or refuses it.
     * @return the permission, on which the attempt's outcome must be
     * {@linkplain Permission#record(Outcome) recorded} or which must be
     * {@linkplain Permission#release() released}
     * @throws CircuitOpenException when the circuit is open, or half-open with every
     * probe place taken
     */
    public Permission acquire() {
        SharedCircuit.Grant grant = (this.shared != null) ? this.shared.acquire() : null;
        if (grant != null) {
            return new Permission(grant.epoch(), grant.probe(), grant);
        }
        this.lock.lock();
        try {
            long now = this.timeSource.nanoTime();
            advance(now);
            switch (this.state) {
                case CLOSED:
                    return new Permission(this.epoch, false, null);
                case HALF_OPEN:
                    if (this.probesInFlight < this.settings.halfOpenProbes()) {
                        this.probesInFlight++;
                        return new Permission(this.epoch, true, null);
                    }
                    throw new CircuitOpenException(this.client, this.model, null);
                default:
                    throw new CircuitOpenException(this.client, this.model, restOfOpenWait(now));
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    private SharedCircuit.@Nullable View sharedView() {
        return (this.shared != null) ? this.shared.view() : null;
    }

    private void advance(long now) {
        if (this.state == CircuitState.OPEN && now >= this.openUntil) {
            transition(CircuitState.HALF_OPEN, now);
        }
    }

    private Duration restOfOpenWait(long now) {
        return Duration.ofNanos(Nanos.saturatedSubtract(this.openUntil, now));
    }

    private void transition(CircuitState next, long now) {
        CircuitState previous = this.state;
        this.state = next;
        this.epoch++;
        this.consecutiveFailures = 0;
        this.probesInFlight = 0;
        this.probesSucceeded = 0;
        this.openUntil = (next == CircuitState.OPEN) ? Nanos.saturatedAdd(now, Nanos.of(this.settings.openWait()))
                : Long.MIN_VALUE;
        String message = "Circuit of client '" + this.client + "', model '" + this.model + "': " + previous + " -> "
                + next;
        if (next == CircuitState.OPEN) {
            logger.warn(LogText.escape(message + "; calls fail fast for " + this.settings.openWait()));
        }
        else {
            logger.info(LogText.escape(message));
        }
    }

    private void complete(Permission permission, @Nullable Outcome outcome) {
        if (permission.grant != null && this.shared != null) {
            this.shared.complete(permission.grant, outcome);
            return;
        }
        this.lock.lock();
        try {
            long now = this.timeSource.nanoTime();
            if (permission.epoch != this.epoch) {
                return;
            }
            if (permission.probe) {
                this.probesInFlight--;
            }
            if (outcome == null || outcome == Outcome.RATE_LIMITED) {
                return;
            }
            boolean failure = isFailure(outcome);
            if (this.state == CircuitState.CLOSED) {
                this.consecutiveFailures = failure ? this.consecutiveFailures + 1 : 0;
                if (this.settings.enabled() && this.consecutiveFailures >= this.settings.failureThreshold()) {
                    transition(CircuitState.OPEN, now);
                }
            }
            else if (this.state == CircuitState.HALF_OPEN && permission.probe) {
                if (failure) {
                    transition(CircuitState.OPEN, now);
                }
                else if (++this.probesSucceeded >= this.settings.halfOpenProbes()) {
                    transition(CircuitState.CLOSED, now);
                }
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "ModelCircuit[client=" + this.client + ", model=" + this.model + ", state=" + state() + "]";
    }

    /**
     * One attempt let through by the circuit. Exactly one of {@link #record(Outcome)} and
     * {@link #release()} counts; later calls do nothing, so {@code release()} belongs in
     * a {@code finally} block after {@code record}.
     */
    public final class Permission {

        private final long epoch;

        private final boolean probe;

        /** The shared circuit's grant, {@code null} when the local circuit let it go. */
        private final SharedCircuit.@Nullable Grant grant;

        private boolean done;

        Permission(long epoch, boolean probe, SharedCircuit.@Nullable Grant grant) {
            this.epoch = epoch;
            this.probe = probe;
            this.grant = grant;
        }

        /**
         * Records how the attempt ended.
         * @param outcome the outcome of the attempt
         */
        public void record(Outcome outcome) {
            if (!this.done) {
                this.done = true;
                complete(this, outcome);
            }
        }

        /**
         * Ends the attempt without an outcome (it was not sent, or failed before a
         * response).
         */
        public void release() {
            if (!this.done) {
                this.done = true;
                complete(this, null);
            }
        }

        /**
         * Whether this attempt is a half-open probe.
         * @return {@code true} for a probe
         */
        public boolean isProbe() {
            return this.probe;
        }

    }

}
