/**
 * The shared (Redis) bucket store under load: three instances on one Redis server.
 */
@NullMarked
package io.github.llmthrottle.benchmarks.redis;

import org.jspecify.annotations.NullMarked;
