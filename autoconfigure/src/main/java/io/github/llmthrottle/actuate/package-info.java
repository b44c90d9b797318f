/**
 * The llmthrottle Actuator endpoint and health contributor.
 */
@NullMarked
package io.github.llmthrottle.actuate;

import org.jspecify.annotations.NullMarked;
