package io.github.llmthrottle.routing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.CircuitOpenException;
import io.github.llmthrottle.ContextWindowExceededException;
import io.github.llmthrottle.FallbackOn;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.ProviderRefusedException;
import io.github.llmthrottle.ThrottleContext;
import org.jspecify.annotations.Nullable;

/**
 * Routes one invocation over a chain of models: {@code [model, fallback...]}, each a
 * model of the router's client or, for a fallback to another provider, of another client
 * ({@link RouteCandidate#client()}).
 * <p>
 * <b>Preemptive.</b> A candidate is skipped without being called when its circuit lets no
 * call through ({@link CircuitOpenException}) or when a typical call would wait for
 * admission longer than the invocation's max-wait, or could never be admitted
 * ({@link AdmissionTimeoutException}); a skipped candidate is
 * {@linkplain RouteCandidate#rejected reported as rejected}. After the invocation's
 * request did not fit a model's context window ({@link ContextWindowExceededException}),
 * a later candidate whose window is smaller than what the request needs is skipped the
 * same way.
 * <p>
 * <b>Reactive.</b> The first candidate not skipped is invoked with a
 * {@link ThrottleContext} naming its client and model, which the invocation makes current
 * for the code it runs (the router itself touches no thread-local). When the invocation
 * fails with a <em>throttling failure</em> (an {@link LlmThrottleException} of the
 * candidate's client anywhere in the exception's cause chain, so also when a
 * {@code RestClient} wrapped it; a request too large for the model's context window is
 * one) the next candidate is tried. Any other exception (a 4xx or quota error surfacing
 * as Spring's {@code RestClientResponseException}, an I/O error that was not retried, an
 * application exception, a throttling failure of another client) propagates at once,
 * unchanged.
 * <p>
 * With {@link #withFallbackOn(Set)}, an exception that carries a provider's refusal of
 * one of the listed kinds ({@link ProviderRefusals}) moves on too, reported as a
 * {@link ProviderRefusedException}. With {@link #withOrder(RouteOrder)}, each invocation
 * tries the candidates in the order the {@link RouteOrder} gives it (weighted, cheapest
 * first) instead of their listed order.
 * <p>
 * <b>Budgets.</b> Candidates whose budget in money is nearly spent
 * ({@link RouteCandidate#isNearBudget}) are tried after the others, each group in its
 * order.
 * <p>
 * Each move from one candidate to the next is reported with
 * {@link RouteCandidate#routedAway(String, LlmThrottleException)}. When every candidate
 * failed, the {@link Recovery} is called with the last throttling failure, or without
 * one, the last exception is rethrown as it was thrown (the synthetic rejection when the
 * last candidate was skipped).
 * <p>
 * {@link #route} runs the whole invocation in one loop; {@link #start} hands out the same
 * steps one at a time ({@link Route}) for an invocation that returns before its calls are
 * made.
 * <p>
 * Immutable and thread-safe; one router serves every invocation of one annotated method.
 */
public final class ModelRouter {

    private static final int MAX_CAUSE_DEPTH = 32;

    private final String client;

    private final List<RouteCandidate> candidates;

    private final Duration defaultMaxWait;

    private final RouteOrder order;

    private final Set<FallbackOn> fallbackOn;

    /**
     * Creates a router.
     * @param client the client of the candidates that name none (the annotation's client)
     * @param candidates the models in the order they are tried; not empty
     * @param defaultMaxWait the max-wait of invocations that do not set one
     * ({@code llm.throttle.queue.max-wait})
     */
    public ModelRouter(String client, List<? extends RouteCandidate> candidates, Duration defaultMaxWait) {
        if (candidates.isEmpty()) {
            throw new IllegalArgumentException("At least one candidate is needed");
        }
        this.client = client;
        this.candidates = List.copyOf(candidates);
        this.defaultMaxWait = defaultMaxWait;
        this.order = RouteOrder.ORDERED;
        this.fallbackOn = Set.of();
    }

    private ModelRouter(ModelRouter router, RouteOrder order, Set<FallbackOn> fallbackOn) {
        this.client = router.client;
        this.candidates = router.candidates;
        this.defaultMaxWait = router.defaultMaxWait;
        this.order = order;
        this.fallbackOn = fallbackOn;
    }

    /**
     * This router with another order of the candidates per invocation.
     * @param order the order ({@link RouteOrder#ORDERED} for the listed one)
     * @return the router
     */
    public ModelRouter withOrder(RouteOrder order) {
        return new ModelRouter(this, order, this.fallbackOn);
    }

    /**
     * This router also moving on when the provider refused the request for one of
     * {@code refusals}.
     * @param refusals the refusals that move on to the next candidate; empty for none
     * @return the router
     */
    public ModelRouter withFallbackOn(Set<FallbackOn> refusals) {
        Set<FallbackOn> copy = refusals.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(refusals));
        return new ModelRouter(this, this.order, copy);
    }

    /**
     * Routes one invocation.
     * @param <T> the result type
     * @param priority the priority of the invocation's calls
     * @param tenant the tenant of the invocation's calls, or {@code null}
     * @param maxWait the invocation's max-wait, or {@code null} for the default
     * @param invocation the invocation, called at most once per candidate
     * @param recovery what to return when every candidate failed, or {@code null} to
     * rethrow
     * @return the result of the first candidate that returned, or of the recovery
     * @throws Throwable what the invocation or the recovery threw
     */
    public <T> T route(Priority priority, @Nullable String tenant, @Nullable Duration maxWait, Invocation<T> invocation,
            @Nullable Recovery<T> recovery) throws Throwable {
        Route route = start(priority, tenant, maxWait);
        for (ThrottleContext context = route.next(); context != null; context = route.next()) {
            try {
                return invocation.proceed(context);
            }
            catch (Throwable ex) {
                if (!route.failed(ex)) {
                    throw ex;
                }
            }
        }
        if (recovery != null) {
            return recovery.recover(route.failure());
        }
        throw route.thrown();
    }

    /**
     * Starts routing one invocation whose candidates are invoked one step at a time, for
     * a caller that cannot wait in {@link #route}: an invocation that returns before its
     * calls are made (a {@code CompletableFuture}, a reactive publisher) tries the next
     * candidate when what it returned failed.
     * @param priority the priority of the invocation's calls
     * @param tenant the tenant of the invocation's calls, or {@code null}
     * @param maxWait the invocation's max-wait, or {@code null} for the default
     * @return the invocation's route, positioned before its first candidate
     */
    public Route start(Priority priority, @Nullable String tenant, @Nullable Duration maxWait) {
        Duration admissionWait = (maxWait != null) ? maxWait : this.defaultMaxWait;
        List<RouteCandidate> candidates = byBudget(ordered(this.order.order(this.candidates)), tenant);
        return new Route(this, candidates, priority, tenant, maxWait, admissionWait);
    }

    /**
     * The candidates in order, those whose budget is nearly spent moved after the others.
     */
    private List<RouteCandidate> ordered(int[] order) {
        List<RouteCandidate> ordered = new ArrayList<>(order.length);
        for (int index : order) {
            ordered.add(this.candidates.get(index));
        }
        return ordered;
    }

    private List<RouteCandidate> byBudget(List<RouteCandidate> candidates, @Nullable String tenant) {
        List<RouteCandidate> near = null;
        for (RouteCandidate candidate : candidates) {
            if (candidate.isNearBudget(tenant)) {
                near = (near != null) ? near : new ArrayList<>();
                near.add(candidate);
            }
        }
        if (near == null || near.size() == candidates.size()) {
            return candidates;
        }
        List<RouteCandidate> ordered = new ArrayList<>(candidates);
        ordered.removeAll(near);
        ordered.addAll(near);
        return ordered;
    }

    String clientOf(RouteCandidate candidate) {
        String client = candidate.client();
        return (client != null) ? client : this.client;
    }

    @Nullable LlmThrottleException refusal(RouteCandidate candidate, Priority priority, @Nullable String tenant, Duration maxWait,
            @Nullable ContextWindowExceededException tooLarge) {
        String client = clientOf(candidate);
        Long window = candidate.contextWindow();
        if (tooLarge != null && window != null && window < tooLarge.getRequiredTokens()) {
            // the invocation's request did not fit a window: a smaller one is not tried
            // (the method would run only to fail before sending again)
            return new ContextWindowExceededException(client, candidate.model(), tooLarge.getEstimatedInputTokens(),
                    tooLarge.getMaxOutputTokens(), window);
        }
        if (!candidate.isCallPermitted()) {
            return new CircuitOpenException(client, candidate.model(), candidate.remainingOpenTime());
        }
        Duration wait = candidate.estimatedWait(priority, tenant, maxWait);
        if (wait == null || wait.compareTo(maxWait) > 0) {
            return new AdmissionTimeoutException(client, candidate.model(), maxWait, wait);
        }
        return null;
    }

    /**
     * A refusal by the provider that the router moves on after.
     * @return the refusal as a failure, or {@code null} when {@code ex} carries none of
     * the kinds of {@link #withFallbackOn(Set)}
     */
    @Nullable LlmThrottleException refusedFailure(Throwable ex, String client, String model) {
        if (this.fallbackOn.isEmpty() || !(ex instanceof Exception)) {
            return null;
        }
        FallbackOn refusal = ProviderRefusals.classify(ex);
        return (refusal != null && this.fallbackOn.contains(refusal))
                ? new ProviderRefusedException(client, model, refusal, ex) : null;
    }

    /**
     * The throttling failure of {@code client} in the cause chain of {@code ex}.
     * @param ex what an invocation threw
     * @param client the client the invocation was routed to
     * @return the failure, or {@code null} when {@code ex} is not a throttling failure of
     * that client
     */
    @Nullable LlmThrottleException throttlingFailure(Throwable ex, String client) {
        if (!(ex instanceof Exception)) {
            return null;
        }
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        Throwable current = ex;
        for (int depth = 0; current != null && depth < MAX_CAUSE_DEPTH && seen.put(current, true) == null; depth++) {
            if (current instanceof LlmThrottleException throttling) {
                return client.equals(throttling.getClient()) ? throttling : null;
            }
            current = current.getCause();
        }
        return null;
    }

    /**
     * The routed method, called once per candidate tried.
     *
     * @param <T> the result type
     */
    @FunctionalInterface
    public interface Invocation<T> {

        /**
         * Runs the method for one candidate, with {@code context} current while it runs
         * ({@link ThrottleContext#open}) when it reads the thread's context.
         * @param context the routed client, model, priority, tenant and attempt
         * @return the result
         * @throws Throwable whatever the method throws
         */
        T proceed(ThrottleContext context) throws Throwable;

    }

    /**
     * What an invocation returns when every candidate failed (the annotation's fallback
     * method).
     *
     * @param <T> the result type
     */
    @FunctionalInterface
    public interface Recovery<T> {

        /**
         * Produces the result after every candidate failed.
         * @param failure the last throttling failure
         * @return the result
         * @throws Throwable whatever the recovery throws
         */
        T recover(LlmThrottleException failure) throws Throwable;

    }

}
