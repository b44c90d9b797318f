/**
 * The adapter of OkHttp to the call pipeline of
 * {@link io.github.llmthrottle.client.ThrottledClient}: the interceptor that throttles
 * the OkHttp clients of Spring AI's Anthropic and OpenAI models (the official SDKs), and
 * the priority and tenant a caller hands to it.
 */
@NullMarked
package io.github.llmthrottle.okhttp;

import org.jspecify.annotations.NullMarked;
