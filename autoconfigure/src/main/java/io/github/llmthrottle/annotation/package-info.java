/**
 * Support for {@link io.github.llmthrottle.Throttled}: the advisor that routes annotated
 * methods over their model chain, and the startup validation of every annotation.
 */
@NullMarked
package io.github.llmthrottle.annotation;

import org.jspecify.annotations.NullMarked;
