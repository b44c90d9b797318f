package io.github.llmthrottle.store.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.llmthrottle.CircuitOpenException;
import io.github.llmthrottle.retry.Classification.Outcome;
import io.github.llmthrottle.routing.CircuitSettings;
import io.github.llmthrottle.routing.CircuitState;
import io.github.llmthrottle.routing.ModelCircuit;
import io.github.llmthrottle.routing.SharedCircuit;
import io.github.llmthrottle.store.BucketKeys;
import io.github.llmthrottle.store.redis.RedisCircuitScript.Reply;
import io.github.llmthrottle.store.redis.RedisConnector.Connection;
import io.github.llmthrottle.time.Nanos;
import io.github.llmthrottle.time.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * The circuit of one client and model shared through Redis ({@link RedisCircuitScript}),
 * as one instance sees it: what the last answer about it said, read again in the
 * background once older than {@value #REFRESH_AFTER_MILLIS} ms.
 *
 * <ul>
 * <li>Closed (as last read): an attempt goes without asking Redis; its outcome is sent
 * without waiting (one command per attempt with a verdict, as a settlement of its buckets
 * is: any success resets the count of the fleet), and the answer updates what this
 * instance knows, so a circuit another instance opened is open here after that answer or
 * the next reading.</li>
 * <li>Open, its wait not over: refused without asking Redis.</li>
 * <li>Half-open, or nothing read yet: Redis grants the place (a probe, at most
 * {@link CircuitSettings#halfOpenProbes()} across the fleet), the caller waiting for it
 * for at most the store's timeout. A probe whose outcome never comes (its instance
 * crashed) gives its place back after the open wait, or a minute if longer.</li>
 * </ul>
 * While Redis does not answer, {@link #acquire()} and {@link #view()} answer
 * {@code null}, and the {@link ModelCircuit} decides alone.
 */
final class RedisCircuit implements SharedCircuit {

    static final long REFRESH_AFTER_MILLIS = 250;

    private static final long REFRESH_AFTER_NANOS = TimeUnit.MILLISECONDS.toNanos(REFRESH_AFTER_MILLIS);

    private static final Duration LEAST_PROBE_HOLD = Duration.ofMinutes(1);

    private final RedisBucketStore store;

    private final String client;

    private final String model;

    private final CircuitSettings settings;

    private final TimeSource timeSource;

    private final String[] keys;

    private final long holdMicros;

    private final AtomicLong probes = new AtomicLong();

    private final AtomicBoolean reading = new AtomicBoolean();

    private final AtomicReference<@Nullable Seen> seen = new AtomicReference<>();

    RedisCircuit(RedisBucketStore store, String client, String model, CircuitSettings settings, TimeSource timeSource) {
        this.store = store;
        this.client = client;
        this.model = model;
        this.settings = settings;
        this.timeSource = timeSource;
        String key = store.keyPrefix() + ":" + BucketKeys.model(client, model) + ":circuit";
        this.keys = new String[] { key, key + ":probes" };
        Duration hold = (settings.openWait().compareTo(LEAST_PROBE_HOLD) > 0) ? settings.openWait() : LEAST_PROBE_HOLD;
        this.holdMicros = hold.toNanos() / 1000;
    }

    @Override
    public @Nullable Grant acquire() {
        Connection connection = this.store.connector().current();
        if (connection == null) {
            return null;
        }
        long now = this.timeSource.nanoTime();
        Seen seen = fresh(now);
        if (seen != null) {
            CircuitState state = seen.stateAt(now);
            if (state == CircuitState.CLOSED) {
                return new Grant(seen.reply.epoch(), false, "");
            }
            if (state == CircuitState.OPEN) {
                throw new CircuitOpenException(this.client, this.model, seen.restAt(now));
            }
        }
        return ask(connection);
    }

    /** Asks Redis for a place, within the timeout: a probe when half-open. */
    private @Nullable Grant ask(Connection connection) {
        String token = this.store.instanceId() + "#" + this.probes.incrementAndGet();
        long sent = this.timeSource.nanoTime();
        CompletableFuture<Reply> command = run(connection, "acquire", token, -1, "n");
        RedisConnector.Answer<Reply> answer;
        try {
            // a probe granted too late for its caller gives its place back
            answer = this.store.connector().await(connection, command, (late) -> {
                if (late.granted() && late.state() == CircuitState.HALF_OPEN) {
                    complete(new Grant(late.epoch(), true, token), null);
                }
            });
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return null;
        }
        Reply reply = answer.reply();
        if (reply == null) {
            return null;
        }
        Seen seen = observe(reply, sent);
        if (reply.granted()) {
            boolean probe = reply.state() == CircuitState.HALF_OPEN;
            return new Grant(reply.epoch(), probe, probe ? token : "");
        }
        throw new CircuitOpenException(this.client, this.model,
                (seen.stateAt(seen.at) == CircuitState.OPEN) ? seen.restAt(seen.at) : null);
    }

    @Override
    public void complete(Grant grant, @Nullable Outcome outcome) {
        String verdict = (outcome == null || outcome == Outcome.RATE_LIMITED) ? "n"
                : ModelCircuit.isFailure(outcome) ? "f" : "s";
        if (!grant.probe() && "n".equals(verdict)) {
            return;
        }
        Connection connection = this.store.connector().current();
        if (connection == null) {
            // a probe's place comes back when its hold is over
            return;
        }
        long sent = this.timeSource.nanoTime();
        run(connection, "record", grant.token(), grant.epoch(), verdict)
            .orTimeout(this.store.timeout().toNanos(), TimeUnit.NANOSECONDS)
            .whenComplete((reply, failure) -> answered(connection, reply, failure, sent));
    }

    @Override
    public @Nullable View view() {
        if (this.store.connector().current() == null) {
            return null;
        }
        long now = this.timeSource.nanoTime();
        Seen seen = fresh(now);
        if (seen == null) {
            return null;
        }
        CircuitState state = seen.stateAt(now);
        boolean probeFree = state == CircuitState.HALF_OPEN && (seen.reply.state() != CircuitState.HALF_OPEN
                || seen.reply.probes() < this.settings.halfOpenProbes());
        return new View(state, (state == CircuitState.CLOSED) ? seen.reply.failures() : 0,
                (state == CircuitState.OPEN) ? seen.restAt(now) : null, probeFree);
    }

    /** What was last read, reading it again in the background when old. */
    private @Nullable Seen fresh(long now) {
        Seen seen = this.seen.get();
        if ((seen == null || Nanos.saturatedSubtract(now, seen.at) > REFRESH_AFTER_NANOS)
                && this.reading.compareAndSet(false, true)) {
            Connection connection = this.store.connector().current();
            if (connection == null) {
                this.reading.set(false);
            }
            else {
                run(connection, "read", "", -1, "n").orTimeout(this.store.timeout().toNanos(), TimeUnit.NANOSECONDS)
                    .whenComplete((reply, failure) -> {
                        this.reading.set(false);
                        answered(connection, reply, failure, now);
                    });
            }
        }
        return seen;
    }

    private void answered(Connection connection, @Nullable Reply reply, @Nullable Throwable failure, long sent) {
        if (failure != null || reply == null) {
            this.store.connector().commandFailed(connection, (failure != null) ? failure : new IllegalStateException());
            return;
        }
        this.store.connector().answered();
        observe(reply, sent);
    }

    /**
     * Keeps an answer unless a later one is kept already: dated when its command was
     * sent, since what it says of the open wait counts from the moment Redis ran it.
     */
    private Seen observe(Reply reply, long sent) {
        Seen seen = new Seen(reply, sent);
        return this.seen
            .accumulateAndGet(
                    seen, (old,
                            added) -> (old == null || added.reply.epoch() > old.reply.epoch()
                                    || (added.reply.epoch() == old.reply.epoch() && added.at - old.at >= 0)) ? added
                                            : old);
    }

    private CompletableFuture<Reply> run(Connection connection, String operation, String token, long epoch,
            String outcome) {
        return RedisCircuitScript.run(connection.commands(), this.keys, operation, this.store.serverNow(),
                this.settings, this.holdMicros, token, epoch, outcome, this.store.instanceId());
    }

    @Override
    public String toString() {
        return "RedisCircuit[client=" + this.client + ", model=" + this.model + "]";
    }

    /**
     * One answer of Redis and when its command was sent (this instance's monotonic
     * clock).
     */
    private record Seen(Reply reply, long at) {

        CircuitState stateAt(long now) {
            return (this.reply.state() == CircuitState.OPEN && now >= openUntil()) ? CircuitState.HALF_OPEN
                    : this.reply.state();
        }

        Duration restAt(long now) {
            return Duration.ofNanos(Math.max(0, Nanos.saturatedSubtract(openUntil(), now)));
        }

        private long openUntil() {
            return Nanos.saturatedAdd(this.at, this.reply.restMicros() * 1000);
        }

    }

}
