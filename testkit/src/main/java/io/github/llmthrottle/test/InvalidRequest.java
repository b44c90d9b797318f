package io.github.llmthrottle.test;

import org.jspecify.annotations.Nullable;

/** A request body the provider would reject with 400 {@code invalid_request_error}. */
final class InvalidRequest extends Exception {

    private final String message;

    private final @Nullable String param;

    private final @Nullable String code;

    InvalidRequest(String message, @Nullable String param, @Nullable String code) {
        super(message, null, false, false);
        this.message = message;
        this.param = param;
        this.code = code;
    }

    /** The message of the error body, never {@code null}. */
    @Override
    public String getMessage() {
        return this.message;
    }

    @Nullable String param() {
        return this.param;
    }

    @Nullable String code() {
        return this.code;
    }

}
