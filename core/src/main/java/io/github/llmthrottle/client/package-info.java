/**
 * The call pipeline, independent of any HTTP library: each configured client at run time
 * ({@link io.github.llmthrottle.client.ThrottledClient}), the request and response shapes
 * every adapter translates to and from, settlement of tokens from JSON bodies and event
 * streams, and the one channel of events (totals, metrics, health) its calls report to.
 */
@NullMarked
package io.github.llmthrottle.client;

import org.jspecify.annotations.NullMarked;
