/**
 * The adapter of Spring's {@code RestClient} to the call pipeline of
 * {@link io.github.llmthrottle.client.ThrottledClient}: the interceptor every throttled
 * {@code RestClient} carries, and the factory of each client's {@code NAMERestClient}.
 */
@NullMarked
package io.github.llmthrottle.restclient;

import org.jspecify.annotations.NullMarked;
