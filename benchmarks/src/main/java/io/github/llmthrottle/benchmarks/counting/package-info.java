/**
 * What {@code estimation: count-tokens} costs a call: {@link CountTokensCost}.
 */
@NullMarked
package io.github.llmthrottle.benchmarks.counting;

import org.jspecify.annotations.NullMarked;
