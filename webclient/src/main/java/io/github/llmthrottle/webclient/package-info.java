/**
 * The adapter that throttles Spring WebFlux's {@code WebClient}: a
 * {@link org.springframework.http.client.reactive.ClientHttpConnector} decorator that
 * sends every request to a configured client through the non-blocking call pipeline
 * ({@link io.github.llmthrottle.client.ThrottledClient#exchangeAsync}).
 */
@NullMarked
package io.github.llmthrottle.webclient;

import org.jspecify.annotations.NullMarked;
