/**
 * Where token buckets live: the bucket contract, the in-memory store, and the service
 * interfaces a shared store (Redis) implements.
 */
@NullMarked
package io.github.llmthrottle.store;

import org.jspecify.annotations.NullMarked;
