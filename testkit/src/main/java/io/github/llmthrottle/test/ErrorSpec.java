package io.github.llmthrottle.test;

import org.jspecify.annotations.Nullable;

/**
 * What an error response says: status, the dialect's error type, an optional code (OpenAI
 * {@code error.code}, Anthropic {@code error.details.error_code}), the message and, for
 * OpenAI, the {@code param}.
 */
record ErrorSpec(int status, String type, @Nullable String code, String message, @Nullable String param) {

    ErrorSpec(int status, String type, @Nullable String code, String message) {
        this(status, type, code, message, null);
    }

    ErrorSpec withOverrides(Fault fault) {
        return new ErrorSpec(this.status, (fault.errorType() != null) ? fault.errorType() : this.type,
                (fault.errorCode() != null) ? fault.errorCode() : this.code,
                (fault.message() != null) ? fault.message() : this.message, this.param);
    }

}
