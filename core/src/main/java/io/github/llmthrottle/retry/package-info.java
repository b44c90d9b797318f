/**
 * Retry engine: classification of provider responses, Retry-After and reset header
 * parsing, back-off with jitter.
 */
@NullMarked
package io.github.llmthrottle.retry;

import org.jspecify.annotations.NullMarked;
