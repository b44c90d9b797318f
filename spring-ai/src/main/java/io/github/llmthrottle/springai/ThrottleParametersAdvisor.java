package io.github.llmthrottle.springai;

import java.util.Map;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.ThrottleContextAccessor;
import io.github.llmthrottle.okhttp.CallerThrottleParameters;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.core.Ordered;

/**
 * The {@code ChatClient} advisor that gives a call's HTTP requests the priority and
 * tenant of its advisor parameters {@value #PRIORITY} (a {@link Priority} or its name)
 * and {@value #TENANT}:
 * {@code chatClient.prompt("hi").advisors(a -> a.param("llm.throttle.priority", "REALTIME")).call()}.
 * On {@code call()} they are made current on the caller's thread
 * ({@link CallerThrottleParameters}) around the rest of the chain, so every HTTP call of
 * it, tool-calling rounds included, is admitted with them. On {@code stream()}, whose
 * HTTP calls run on other threads, they travel as carrier headers in the call's chat
 * options (see {@link CarrierHeaders}), removed again before the request reaches the
 * provider. Ordered before Spring AI's tool-calling and memory advisors so that it wraps
 * them.
 */
public final class ThrottleParametersAdvisor implements CallAdvisor, StreamAdvisor {

    /** Advisor parameter: the priority of the call's HTTP requests. */
    public static final String PRIORITY = "llm.throttle.priority";

    /** Advisor parameter: the tenant of the call's HTTP requests. */
    public static final String TENANT = "llm.throttle.tenant";

    @Override
    public String getName() {
        return "llmThrottleParameters";
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 100;
    }

    @Override
    public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
        CallerThrottleParameters parameters = parameters(request.context());
        if (parameters == null) {
            return chain.nextCall(request);
        }
        try (ThrottleContext.Scope scope = parameters.open()) {
            return chain.nextCall(request);
        }
    }

    @Override
    public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
        ThrottleContext current = ThrottleContext.current();
        if (current != null) {
            return adviseStream(request, chain, current);
        }
        // a @Throttled method that returns the stream unsubscribed has its context in the
        // stream's Reactor context (and no thread-local where the stream is subscribed)
        return Flux.deferContextual((reactive) -> adviseStream(request, chain,
                reactive.getOrDefault(ThrottleContextAccessor.KEY, (ThrottleContext) null)));
    }

    private Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain,
            @Nullable ThrottleContext invocation) {
        CallerThrottleParameters parameters = parameters(request.context());
        if (parameters == null && invocation != null) {
            // a @Throttled invocation's context is a thread-local: the stream's HTTP
            // call runs elsewhere
            parameters = CallerThrottleParameters.of(invocation);
        }
        ChatOptions options = request.prompt().getOptions();
        if (parameters == null || options == null) {
            return chain.nextStream(request);
        }
        Prompt prompt = request.prompt().mutate().chatOptions(CarrierHeaders.add(options, parameters)).build();
        return chain.nextStream(request.mutate().prompt(prompt).build());
    }

    /**
     * The parameters of a call.
     * @param context the call's advisor context
     * @return the parameters, or {@code null} when the call names neither
     * @throws IllegalArgumentException when the priority is not a {@link Priority}
     */
    static @Nullable CallerThrottleParameters parameters(Map<String, @Nullable Object> context) {
        Object priority = context.get(PRIORITY);
        Object tenant = context.get(TENANT);
        if (priority == null && tenant == null) {
            return null;
        }
        return new CallerThrottleParameters(priority(priority), (tenant != null) ? tenant.toString() : null);
    }

    private static Priority priority(@Nullable Object value) {
        if (value == null) {
            return Priority.NORMAL;
        }
        if (value instanceof Priority priority) {
            return priority;
        }
        Priority named = Priority.fromName(value.toString());
        if (named == null) {
            throw new IllegalArgumentException(
                    "Advisor parameter '" + PRIORITY + "' is '" + value + "'; expected one of REALTIME, NORMAL, BATCH");
        }
        return named;
    }

}
