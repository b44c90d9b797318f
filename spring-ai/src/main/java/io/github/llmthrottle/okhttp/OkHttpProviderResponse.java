package io.github.llmthrottle.okhttp;

import java.io.InputStream;

import io.github.llmthrottle.client.ProviderResponse;
import io.github.llmthrottle.provider.Headers;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * An OkHttp {@link Response} as the call pipeline sees it; its headers are a view of
 * OkHttp's own ({@code okhttp3.Headers::values} is case-insensitive already).
 */
final class OkHttpProviderResponse implements ProviderResponse {

    private final Response response;

    OkHttpProviderResponse(Response response) {
        this.response = response;
    }

    Response response() {
        return this.response;
    }

    @Override
    public int status() {
        return this.response.code();
    }

    @Override
    public Headers headers() {
        return this.response.headers()::values;
    }

    @Override
    public InputStream body() {
        ResponseBody body = this.response.body();
        return (body != null) ? body.byteStream() : InputStream.nullInputStream();
    }

    @Override
    public void close() {
        this.response.close();
    }

}
