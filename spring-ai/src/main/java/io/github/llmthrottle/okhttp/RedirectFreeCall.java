package io.github.llmthrottle.okhttp;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import okhttp3.Call;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okhttp3.internal.connection.RealCall;
import okio.BufferedSource;
import okio.ForwardingSource;
import okio.Okio;
import org.jspecify.annotations.Nullable;

/**
 * Sends a request of a configured host so that it follows no redirect: every such request
 * carries the client's credentials, and OkHttp follows a redirect to whatever host its
 * {@code Location} names, dropping {@code Authorization} only ({@code x-api-key},
 * {@code api-key}, {@code OpenAI-Organization}, {@code OpenAI-Project} go along). An
 * interceptor cannot turn that off for its chain, and the SDKs and Spring AI build their
 * {@code OkHttpClient} themselves, so the request is sent on a call of its own: of the
 * calling call's client, with redirects off, the same connection pool, dispatcher,
 * network interceptors and timeouts, and the application interceptors that come after the
 * throttling one. A 3xx reaches the caller as it is, its {@code Location} readable.
 * <p>
 * The caller's call stays in charge: its deadline is the new call's, and cancelling it
 * cancels the new call within {@link #CANCEL_POLL} (OkHttp tells nobody of a
 * cancellation, so the calls are looked at that often while any is open).
 */
final class RedirectFreeCall {

    /** How often the callers of open calls are looked at for a cancellation. */
    static final Duration CANCEL_POLL = Duration.ofMillis(10);

    /** The caller's call of each open call sent on its behalf. */
    private static final Map<Call, Call> callers = new ConcurrentHashMap<>();

    private static final ReentrantLock lock = new ReentrantLock();

    private static final ScheduledThreadPoolExecutor poller = poller();

    private static @Nullable ScheduledFuture<?> polling;

    private RedirectFreeCall() {
    }

    /**
     * Sends {@code request} on a call that follows no redirect, on behalf of the call of
     * {@code chain}; as {@code chain.proceed} does when that call's client follows none,
     * or when it is not OkHttp's own.
     * @param chain the chain of the caller's call
     * @param request the request to send
     * @param throttling the interceptor sending it, whose followers in the client's
     * application interceptors see the request
     * @param startNanos when the caller's call timeout started, on
     * {@link System#nanoTime()}
     * @return the response, a 3xx as it is
     * @throws IOException as {@code chain.proceed} does
     */
    static Response proceed(Interceptor.Chain chain, Request request, Interceptor throttling, long startNanos)
            throws IOException {
        if (!(chain.call() instanceof RealCall caller) || !caller.getClient().followRedirects()) {
            return chain.proceed(request);
        }
        Call call = redirectFree(caller.getClient(), chain, throttling).newCall(request);
        long timeout = caller.timeout().timeoutNanos();
        if (timeout > 0) {
            call.timeout().deadlineNanoTime(startNanos + timeout);
        }
        link(caller, call);
        Response response;
        try {
            response = call.execute();
        }
        catch (IOException | RuntimeException ex) {
            unlink(call);
            if (call.isCanceled()) {
                // its deadline passed, which is the caller's: the caller ends as OkHttp's
                // call timeout ends it, cancelled
                caller.cancel();
            }
            throw ex;
        }
        return unlinkedOnClose(response, call);
    }

    private static OkHttpClient redirectFree(OkHttpClient client, Interceptor.Chain chain, Interceptor throttling) {
        OkHttpClient.Builder builder = client.newBuilder()
            .followRedirects(false)
            .followSslRedirects(false)
            .callTimeout(Duration.ZERO)
            .connectTimeout(Duration.ofMillis(chain.connectTimeoutMillis()))
            .readTimeout(Duration.ofMillis(chain.readTimeoutMillis()))
            .writeTimeout(Duration.ofMillis(chain.writeTimeoutMillis()));
        // the interceptors before the throttling one have seen the request already; when
        // it is not among them (wrapped in another), all of them see it again, and it
        // lets a request it has sent pass
        List<Interceptor> interceptors = client.interceptors();
        int position = interceptors.indexOf(throttling);
        builder.interceptors().clear();
        builder.interceptors().addAll(interceptors.subList(position + 1, interceptors.size()));
        return builder.build();
    }

    private static Response unlinkedOnClose(Response response, Call call) {
        ResponseBody body = response.body();
        if (body == null) {
            unlink(call);
            return response;
        }
        BufferedSource source = Okio.buffer(new ForwardingSource(body.source()) {

            @Override
            public void close() throws IOException {
                try {
                    super.close();
                }
                finally {
                    unlink(call);
                }
            }

        });
        return response.newBuilder()
            .body(ResponseBody.create(source, body.contentType(), body.contentLength()))
            .build();
    }

    private static void link(Call caller, Call call) {
        lock.lock();
        try {
            callers.put(call, caller);
            if (polling == null) {
                long period = CANCEL_POLL.toNanos();
                polling = poller.scheduleWithFixedDelay(RedirectFreeCall::poll, period, period, TimeUnit.NANOSECONDS);
            }
        }
        finally {
            lock.unlock();
        }
        if (caller.isCanceled()) {
            call.cancel();
        }
    }

    private static void unlink(Call call) {
        callers.remove(call);
    }

    /** Cancels the calls whose caller's call is cancelled; stops when none is open. */
    private static void poll() {
        callers.forEach((call, caller) -> {
            if (caller.isCanceled()) {
                call.cancel();
                callers.remove(call);
            }
        });
        lock.lock();
        try {
            if (callers.isEmpty() && polling != null) {
                polling.cancel(false);
                polling = null;
            }
        }
        finally {
            lock.unlock();
        }
    }

    private static ScheduledThreadPoolExecutor poller() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, (task) -> {
            Thread thread = new Thread(task, "llm-throttle-okhttp-cancel");
            thread.setDaemon(true);
            return thread;
        });
        executor.setKeepAliveTime(1, TimeUnit.MINUTES);
        executor.allowCoreThreadTimeOut(true);
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }

}
