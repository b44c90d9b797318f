package io.github.llmthrottle.client;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.RejectionReason;
import io.github.llmthrottle.provider.Usage;
import io.github.llmthrottle.retry.Classification;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Passes every event to several observers in order; an observer that throws is logged and
 * does not keep the others (or the call) from going on.
 */
public final class CompositeThrottleObserver implements ThrottleObserver {

    private static final Log logger = LogFactory.getLog(CompositeThrottleObserver.class);

    private final List<ThrottleObserver> observers;

    public CompositeThrottleObserver(List<? extends ThrottleObserver> observers) {
        this.observers = List.copyOf(observers);
    }

    @Override
    public void onRetry(String client, String model, Classification classification, Duration wait, int retryCount) {
        each((observer) -> observer.onRetry(client, model, classification, wait, retryCount));
    }

    @Override
    public void onServerWait(String client, String model, Duration wait) {
        each((observer) -> observer.onServerWait(client, model, wait));
    }

    @Override
    public void onAdmitted(String client, String model, Priority priority, Duration waited) {
        each((observer) -> observer.onAdmitted(client, model, priority, waited));
    }

    @Override
    public void onAttempt(String client, String model, Classification.Outcome outcome, int status, Duration duration) {
        each((observer) -> observer.onAttempt(client, model, outcome, status, duration));
    }

    @Override
    public void onRejected(String client, String model, RejectionReason rejection, LlmThrottleException exception) {
        each((observer) -> observer.onRejected(client, model, rejection, exception));
    }

    @Override
    public void onUsage(String client, String model, Usage usage) {
        each((observer) -> observer.onUsage(client, model, usage));
    }

    @Override
    public void onCost(String client, String model, BigDecimal cost) {
        each((observer) -> observer.onCost(client, model, cost));
    }

    @Override
    public void onCall(String client, String model, CallOutcome outcome, Duration duration) {
        each((observer) -> observer.onCall(client, model, outcome, duration));
    }

    @Override
    public void onCallCompleted(String client, String model, Duration duration, @Nullable String errorType) {
        each((observer) -> observer.onCallCompleted(client, model, duration, errorType));
    }

    @Override
    public void onFirstChunk(String client, String model, Duration sinceCallStart) {
        each((observer) -> observer.onFirstChunk(client, model, sinceCallStart));
    }

    @Override
    public void onFallback(String client, String from, String to, Throwable cause) {
        each((observer) -> observer.onFallback(client, from, to, cause));
    }

    @Override
    public void onModelForgotten(String client, String model) {
        each((observer) -> observer.onModelForgotten(client, model));
    }

    /**
     * The observers of one call's events: each observer's own view of the call, or this
     * composite when none keeps one.
     */
    @Override
    public ThrottleObserver forCall(Caller caller) {
        List<ThrottleObserver> views = new ArrayList<>(this.observers.size());
        boolean viewed = false;
        for (ThrottleObserver observer : this.observers) {
            ThrottleObserver view = observer;
            try {
                view = observer.forCall(caller);
            }
            catch (RuntimeException ex) {
                logger.warn("ThrottleObserver " + observer.getClass().getName() + " failed; ignoring", ex);
            }
            viewed |= view != observer;
            views.add(view);
        }
        return viewed ? new CompositeThrottleObserver(views) : this;
    }

    private void each(Consumer<ThrottleObserver> event) {
        for (ThrottleObserver observer : this.observers) {
            try {
                event.accept(observer);
            }
            catch (RuntimeException ex) {
                logger.warn("ThrottleObserver " + observer.getClass().getName() + " failed; ignoring", ex);
            }
        }
    }

}
