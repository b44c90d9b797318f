package kotlin.coroutines;

/**
 * Stands in for Kotlin's {@code Continuation}, which Kotlin is not on this module's test
 * classpath to provide: a Kotlin {@code suspend} function compiles to a method taking one
 * last, which is how {@code @Throttled}'s startup check recognises it.
 *
 * @param <T> the type of the suspended function's result
 */
public interface Continuation<T> {

}
