package io.github.llmthrottle.okhttp;

import java.io.IOException;
import java.time.Duration;
import java.time.format.DateTimeParseException;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.client.Caller;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ProviderRequest;
import io.github.llmthrottle.client.ThrottledClient;
import okhttp3.Call;
import okhttp3.Dispatcher;
import okhttp3.Request;
import okhttp3.RequestBody;
import okio.Buffer;
import org.jspecify.annotations.Nullable;

/**
 * What an OkHttp request is for the call pipeline, read the same way where an enqueued
 * call waits for admission ahead of its run ({@link EnqueuedAdmissions}) and in the
 * interceptor ({@link OkHttpThrottlingInterceptor}).
 */
final class OkHttpRequests {

    private static final String EVENT_STREAM = "text/event-stream";

    /** OkHttp's default {@code Dispatcher.maxRequests}. */
    private static final int DISPATCHER_DEFAULT_MAX_REQUESTS = 64;

    private OkHttpRequests() {
    }

    /**
     * The pipeline's request for {@code request}.
     * @param request the request
     * @param body its body, read
     * @param call the call that sends it
     * @param caller its caller
     * @return the pipeline's request
     */
    static ProviderRequest providerRequest(Request request, byte[] body, Call call, Caller caller) {
        return new ProviderRequest(request.method(), request.url().uri(), request.headers()::values, body,
                acceptsEventStream(request), callTimeout(call), caller);
    }

    /**
     * The caller of the request, read once: a {@code @Throttled} invocation of the
     * resolved client on this thread, else the parameters the request carries, else those
     * current on this thread, when they apply to the resolved client.
     * @param request the request
     * @param client the client it resolved to
     * @return the caller
     */
    static Caller caller(Request request, ThrottledClient client) {
        ThrottleContext invocation = ThrottleContext.current();
        if (invocation != null && invocation.getClient().equals(client.getName())) {
            return Caller.of(invocation, client.getName());
        }
        CallerThrottleParameters parameters = carriedParameters(request);
        if (parameters == null) {
            parameters = CallerThrottleParameters.current();
        }
        return (parameters != null && parameters.appliesTo(client.getName())) ? parameters.caller() : Caller.DEFAULT;
    }

    private static @Nullable CallerThrottleParameters carriedParameters(Request request) {
        String priority = request.header(OkHttpThrottlingInterceptor.PRIORITY_HEADER);
        String tenant = request.header(OkHttpThrottlingInterceptor.TENANT_HEADER);
        if (priority == null && tenant == null) {
            return null;
        }
        return new CallerThrottleParameters(priority(priority), tenant,
                duration(request.header(OkHttpThrottlingInterceptor.MAX_WAIT_HEADER)),
                request.header(OkHttpThrottlingInterceptor.CLIENT_HEADER));
    }

    /** A carried max-wait; one that is not a duration, or is negative, counts as none. */
    private static @Nullable Duration duration(@Nullable String value) {
        if (value == null) {
            return null;
        }
        try {
            Duration duration = Duration.parse(value.strip());
            return duration.isNegative() ? null : duration;
        }
        catch (DateTimeParseException ex) {
            return null;
        }
    }

    /**
     * The priority a carrier header names; one that names none counts as
     * {@link Priority#NORMAL} rather than failing the call (on OkHttp's async path an
     * exception here would end up uncaught on the dispatcher thread).
     */
    private static Priority priority(@Nullable String name) {
        Priority priority = (name != null) ? Priority.fromName(name) : null;
        return (priority != null) ? priority : Priority.NORMAL;
    }

    /**
     * The call timeout of the call, whose timer OkHttp starts just before its
     * interceptors run (on the caller's thread for a synchronous call, on the
     * dispatcher's for an enqueued one); {@code null} when none is set.
     */
    private static @Nullable Duration callTimeout(Call call) {
        long nanos = call.timeout().timeoutNanos();
        return (nanos > 0) ? Duration.ofNanos(nanos) : null;
    }

    /**
     * The bytes of a request body.
     * @param body the body, or {@code null}
     * @return its bytes, empty when there is none
     * @throws IOException when the body cannot be written
     */
    static byte[] bytes(@Nullable RequestBody body) throws IOException {
        if (body == null) {
            return new byte[0];
        }
        Buffer buffer = new Buffer();
        body.writeTo(buffer);
        return buffer.readByteArray();
    }

    private static boolean acceptsEventStream(Request request) {
        return request.headers("Accept").stream().anyMatch((accept) -> accept.contains(EVENT_STREAM));
    }

    /**
     * Lets every enqueued call of a throttled host reach llm-throttle's priority queue:
     * OkHttp's dispatcher runs at most {@code maxRequestsPerHost} (Spring AI: 64)
     * enqueued calls at once and holds the rest in a FIFO queue before any interceptor
     * sees them, so calls waiting for admission (streams, async SDK calls) would hold
     * every slot and a realtime call behind them could not overtake batch calls. The
     * dispatcher's limits are raised to {@code queue.capacity} plus OkHttp's default
     * (64): the admission queue, bounded by {@code queue.capacity} and ordered by
     * priority, is what holds calls back for a throttled host. Only a dispatcher that
     * runs an enqueued call to a throttled host is changed.
     * @param dispatcher the dispatcher of the call
     * @param registry the configured clients
     */
    static void liftDispatcherLimits(Dispatcher dispatcher, LlmThrottleRegistry registry) {
        int limit = registry.getSettings().queueCapacity() + DISPATCHER_DEFAULT_MAX_REQUESTS;
        if (dispatcher.getMaxRequestsPerHost() < limit || dispatcher.getMaxRequests() < limit) {
            dispatcher.setMaxRequests(Math.max(limit, dispatcher.getMaxRequests()));
            dispatcher.setMaxRequestsPerHost(Math.max(limit, dispatcher.getMaxRequestsPerHost()));
        }
    }

}
