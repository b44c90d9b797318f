/**
 * Provider dialects: request and response body fields, rate-limit headers and usage of
 * Anthropic and OpenAI-compatible APIs.
 */
@NullMarked
package io.github.llmthrottle.provider;

import org.jspecify.annotations.NullMarked;
