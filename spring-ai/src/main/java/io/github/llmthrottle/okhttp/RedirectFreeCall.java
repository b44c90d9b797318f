package io.github.llmthrottle.okhttp;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

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
 * cancels the new call within {@link CallCancellations#POLL}.
 */
final class RedirectFreeCall {

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
        CallCancellations.Watch watch = CallCancellations.watch(caller, call::cancel);
        Response response;
        try {
            response = call.execute();
        }
        catch (IOException | RuntimeException ex) {
            watch.close();
            if (call.isCanceled()) {
                // its deadline passed, which is the caller's: the caller ends as OkHttp's
                // call timeout ends it, cancelled
                caller.cancel();
            }
            throw ex;
        }
        return unwatchedOnClose(response, watch);
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

    private static Response unwatchedOnClose(Response response, CallCancellations.Watch watch) {
        ResponseBody body = response.body();
        if (body == null) {
            watch.close();
            return response;
        }
        BufferedSource source = Okio.buffer(new ForwardingSource(body.source()) {

            @Override
            public void close() throws IOException {
                try {
                    super.close();
                }
                finally {
                    watch.close();
                }
            }

        });
        return response.newBuilder()
            .body(ResponseBody.create(source, body.contentType(), body.contentLength()))
            .build();
    }

}
