package io.github.llmthrottle.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.llmthrottle.client.ThrottleObserver;
import io.github.llmthrottle.retry.Classification;
import io.github.llmthrottle.time.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * Remembers, per client and model, when the provider last throttled (429), was overloaded
 * (529 or an overloaded 503), rejected the credentials (401, 403) and accepted a call:
 * what the health indicator needs beyond the limiter's state. An observer, so it sees
 * every attempt.
 */
public final class ProviderSignals implements ThrottleObserver {

    private final TimeSource timeSource;

    private final Map<String, Map<String, Signals>> signals = new ConcurrentHashMap<>();

    /**
     * Creates an empty record of signals.
     * @param timeSource the time source whose wall clock dates the signals
     */
    public ProviderSignals(TimeSource timeSource) {
        this.timeSource = timeSource;
    }

    @Override
    public void onAttempt(String client, String model, Classification.Outcome outcome, int status, Duration duration) {
        Signals signals = this.signals.computeIfAbsent(client, (name) -> new ConcurrentHashMap<>())
            .computeIfAbsent(model, (name) -> new Signals());
        Instant now = this.timeSource.instant();
        if (outcome == Classification.Outcome.RATE_LIMITED) {
            signals.last429 = now;
        }
        else if (outcome == Classification.Outcome.OVERLOADED) {
            signals.last529 = now;
        }
        else if (status == 401 || status == 403) {
            signals.lastCredentialsRejected = now;
        }
        else if (outcome == Classification.Outcome.SUCCESS) {
            signals.lastSuccess = now;
        }
    }

    @Override
    public void onModelForgotten(String client, String model) {
        Map<String, Signals> byModel = this.signals.get(client);
        if (byModel != null) {
            byModel.remove(model);
        }
    }

    /**
     * The signals of a client and model so far.
     * @param client the client name
     * @param model the model name
     * @return the signals (all {@code null} when none was seen)
     */
    public Snapshot of(String client, String model) {
        Map<String, Signals> models = this.signals.get(client);
        Signals signals = (models != null) ? models.get(model) : null;
        if (signals == null) {
            return Snapshot.NONE;
        }
        return new Snapshot(signals.last429, signals.last529, signals.lastCredentialsRejected, signals.lastSuccess);
    }

    /**
     * When each signal was last seen for one client and model.
     *
     * @param last429 the last rate-limit 429, or {@code null}
     * @param last529 the last 529 or overloaded 503, or {@code null}
     * @param lastCredentialsRejected the last 401 or 403, or {@code null}
     * @param lastSuccess the last successful attempt, or {@code null}
     */
    public record Snapshot(@Nullable Instant last429, @Nullable Instant last529,
            @Nullable Instant lastCredentialsRejected, @Nullable Instant lastSuccess) {

        static final Snapshot NONE = new Snapshot(null, null, null, null);

        /**
         * Whether the credentials were rejected and no call has succeeded since.
         * @return {@code true} when the last word on the credentials was a rejection
         */
        public boolean credentialsRejected() {
            return this.lastCredentialsRejected != null
                    && (this.lastSuccess == null || this.lastCredentialsRejected.isAfter(this.lastSuccess));
        }

    }

    private static final class Signals {

        volatile @Nullable Instant last429;

        volatile @Nullable Instant last529;

        volatile @Nullable Instant lastCredentialsRejected;

        volatile @Nullable Instant lastSuccess;

    }

}
