package io.github.llmthrottle.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.github.llmthrottle.InvalidThrottleConfigurationException;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Throttled;
import io.github.llmthrottle.client.ClientSettings;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ThrottledClient;
import io.github.llmthrottle.routing.CostEstimator;
import io.github.llmthrottle.routing.ModelReference;
import io.github.llmthrottle.routing.ModelRouter;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds, checks and caches the {@code @Throttled} methods of beans.
 * <p>
 * {@link #validate(Class)} runs for each bean at startup, before it is proxied, and stops
 * the application with an {@link InvalidThrottleConfigurationException} naming the method
 * when an annotation names an unknown client or model (a fallback entry may name a model
 * of another client as {@code CLIENT:MODEL}, see
 * {@link io.github.llmthrottle.routing.ModelReference}), its {@code fallbackMethod} is
 * missing or has the wrong parameters or return type, its {@code maxWait} or
 * {@code tenant} cannot be parsed, the method returns an asynchronous type that cannot be
 * routed (see {@link AsyncReturnType}), or the method cannot be proxied (private, static
 * or final, or a final class).
 * <p>
 * A {@code @Throttled} on a class applies to each of its public instance methods; one on
 * a method wins over the class's.
 */
final class ThrottledMethods {

    private final Supplier<LlmThrottleRegistry> registry;

    private final Supplier<@Nullable CostEstimator> costs;

    private final SpelExpressionParser parser = new SpelExpressionParser();

    private final Map<MethodClassKey, Resolved> cache = new ConcurrentHashMap<>();

    /**
     * Creates the method registry.
     * @param registry the throttled clients, looked up when the first annotated bean
     * appears
     */
    ThrottledMethods(Supplier<LlmThrottleRegistry> registry) {
        this(registry, () -> null);
    }

    /**
     * Creates the method registry.
     * @param registry the throttled clients, looked up when the first annotated bean
     * appears
     * @param costs the cost of a request to a model, for {@code Routing.CHEAPEST}; gives
     * {@code null} when nothing prices models
     */
    ThrottledMethods(Supplier<LlmThrottleRegistry> registry, Supplier<@Nullable CostEstimator> costs) {
        this.registry = registry;
        this.costs = costs;
    }

    /**
     * Checks every {@code @Throttled} method of a bean class and caches what it resolved.
     * @param beanClass the bean's class (a proxy's target class)
     * @throws InvalidThrottleConfigurationException for the first misuse found
     */
    void validate(Class<?> beanClass) {
        Class<?> userClass = ClassUtils.getUserClass(beanClass);
        if (!AnnotationUtils.isCandidateClass(userClass, Throttled.class)) {
            return;
        }
        Method[] methods = ReflectionUtils.getUniqueDeclaredMethods(userClass,
                (method) -> method.getDeclaringClass() != Object.class && !method.isBridge() && !method.isSynthetic());
        for (Method method : methods) {
            Throttled annotation = annotationOf(method, userClass);
            if (annotation != null) {
                checkProxyable(method, userClass);
                this.cache.put(new MethodClassKey(method, userClass),
                        new Resolved(resolve(method, userClass, annotation)));
            }
        }
    }

    /**
     * The routing of one invocation's method.
     * @param method the invoked method (as the proxy saw it)
     * @param targetClass the class of the target bean
     * @return the method's routing, or {@code null} when the method is not throttled
     */
    @Nullable ThrottledMethod get(Method method, Class<?> targetClass) {
        Class<?> userClass = ClassUtils.getUserClass(targetClass);
        MethodClassKey key = new MethodClassKey(method, userClass);
        Resolved resolved = this.cache.get(key);
        if (resolved == null) {
            resolved = this.cache.computeIfAbsent(key, (k) -> {
                Method specific = BridgeMethodResolver
                    .findBridgedMethod(AopUtils.getMostSpecificMethod(method, userClass));
                Throttled annotation = annotationOf(specific, userClass);
                return new Resolved((annotation != null) ? resolve(specific, userClass, annotation) : null);
            });
        }
        return resolved.method;
    }

    private static @Nullable Throttled annotationOf(Method method, Class<?> userClass) {
        Throttled annotation = AnnotatedElementUtils.findMergedAnnotation(method, Throttled.class);
        if (annotation == null && coveredByClassAnnotation(method)) {
            annotation = AnnotatedElementUtils.findMergedAnnotation(userClass, Throttled.class);
        }
        return annotation;
    }

    static boolean coveredByClassAnnotation(Method method) {
        int modifiers = method.getModifiers();
        return Modifier.isPublic(modifiers) && !Modifier.isStatic(modifiers) && !ReflectionUtils.isObjectMethod(method);
    }

    private static void checkProxyable(Method method, Class<?> userClass) {
        String description = describe(method, userClass);
        String action = "Make it a public or protected instance method that is not final, on a class that is not "
                + "final, and call it through the bean (a call from the same object bypasses the proxy).";
        int modifiers = method.getModifiers();
        if (Modifier.isPrivate(modifiers)) {
            throw invalid(description, "@Throttled on a private method has no effect: a proxy cannot intercept it",
                    action);
        }
        if (Modifier.isStatic(modifiers)) {
            throw invalid(description, "@Throttled on a static method has no effect: a proxy cannot intercept it",
                    action);
        }
        if (Modifier.isFinal(modifiers)) {
            throw invalid(description, "@Throttled on a final method has no effect: a proxy cannot override it",
                    action);
        }
        if (Modifier.isFinal(userClass.getModifiers())) {
            throw invalid(description, "@Throttled on a method of final class " + userClass.getName()
                    + " cannot work: a proxy cannot subclass it", action);
        }
    }

    private ThrottledMethod resolve(Method method, Class<?> userClass, Throttled annotation) {
        String description = describe(method, userClass);
        AsyncReturnType async = AsyncReturnType.of(method, description);
        LlmThrottleRegistry registry = this.registry.get();
        ThrottledClient client = client(registry, annotation, description);
        ClientSettings settings = client.getSettings();
        String model = model(settings, annotation, description);
        List<ModelReference> chain = chain(registry, settings, model, annotation, description);
        List<ThrottledModelCandidate> candidates = chain.stream().map((reference) -> {
            ThrottledClient owner = registry.getClients().get(reference.client());
            if (owner == null) {
                throw new IllegalStateException(
                        description + " routes to client '" + reference.client() + "', which is not configured");
            }
            return new ThrottledModelCandidate(owner, owner.model(reference.model()), registry.getBudgets());
        }).toList();
        ModelRouter router = RouterOptions.configure(
                new ModelRouter(client.getName(), candidates, registry.getSettings().maxWait()), candidates, annotation,
                this.costs.get(), description);
        Duration maxWait = maxWait(annotation, description);
        Expression tenant = tenant(annotation, description);
        Method fallback = null;
        boolean takesThrowable = false;
        if (!annotation.fallbackMethod().isBlank()) {
            fallback = fallbackMethod(method, userClass, annotation.fallbackMethod().trim(), description);
            takesThrowable = fallback.getParameterCount() > method.getParameterCount();
            ReflectionUtils.makeAccessible(fallback);
        }
        return new ThrottledMethod(description, method, router, annotation.priority(), tenant, maxWait, fallback,
                takesThrowable, async);
    }

    private static ThrottledClient client(LlmThrottleRegistry registry, Throttled annotation, String description) {
        Map<String, ThrottledClient> clients = registry.getClients();
        String name = annotation.client().trim();
        if (name.isEmpty()) {
            if (clients.size() == 1) {
                return clients.values().iterator().next();
            }
            if (clients.isEmpty()) {
                throw invalid(description, "@Throttled needs a client, but none is configured",
                        "Configure one under llm.throttle.clients, for example llm.throttle.clients.anthropic.provider=anthropic.");
            }
            throw invalid(description, "@Throttled names no client, and " + clients.size() + " are configured",
                    "Set client to one of " + clients.keySet() + ".");
        }
        ThrottledClient client = clients.get(name);
        if (client == null) {
            throw invalid(description, "@Throttled client '" + name + "' is not configured under llm.throttle.clients",
                    "Use one of " + clients.keySet() + ", or configure llm.throttle.clients." + name + ".");
        }
        return client;
    }

    private static String model(ClientSettings settings, Throttled annotation, String description) {
        String model = annotation.model().trim();
        if (model.isEmpty()) {
            if (settings.defaultModel() == null) {
                throw invalid(description,
                        "@Throttled names no model, and client '" + settings.name() + "' has no default-model",
                        "Set model, or llm.throttle.clients." + settings.name() + ".default-model.");
            }
            return settings.defaultModel();
        }
        checkModel(settings, model, "model", description);
        return model;
    }

    private static List<ModelReference> chain(LlmThrottleRegistry registry, ClientSettings settings, String model,
            Throttled annotation, String description) {
        boolean annotated = annotation.fallback().length > 0;
        List<String> fallback = annotated ? Arrays.asList(annotation.fallback()) : settings.fallbackOf(model);
        Map<String, Set<String>> models = new LinkedHashMap<>();
        registry.getClients().forEach((name, client) -> models.put(name, namedModels(client.getSettings())));
        Set<ModelReference> chain = new LinkedHashSet<>();
        chain.add(new ModelReference(settings.name(), model));
        for (String candidate : fallback) {
            String name = candidate.trim();
            ModelReference reference;
            try {
                reference = ModelReference.resolve(name, settings.name(), models);
            }
            catch (ModelReference.InvalidReferenceException ex) {
                String source = annotated ? "@Throttled fallback model"
                        : "llm.throttle.clients." + settings.name() + ".models." + model + ".fallback entry";
                throw invalid(description, source + " '" + name + "' " + ex.getReason(), ex.getAction());
            }
            if (!chain.add(reference)) {
                throw invalid(description, "@Throttled fallback lists '" + name + "' twice, or names the model itself",
                        "List each fallback model once, after the model.");
            }
        }
        return List.copyOf(chain);
    }

    /**
     * The models an annotation may name for a client: the configured ones and the default
     * model.
     */
    private static Set<String> namedModels(ClientSettings settings) {
        Set<String> models = new LinkedHashSet<>(settings.models().keySet());
        if (settings.defaultModel() != null) {
            models.add(settings.defaultModel());
        }
        return models;
    }

    private static void checkModel(ClientSettings settings, String model, String what, String description) {
        if (!settings.models().containsKey(model) && !model.equals(settings.defaultModel())) {
            String known = settings.models().keySet().toString();
            throw invalid(description,
                    "@Throttled " + what + " '" + model + "' is not configured for client '" + settings.name() + "'",
                    "Use one of " + known + ", or configure llm.throttle.clients." + settings.name() + ".models."
                            + model + ".");
        }
    }

    private static @Nullable Duration maxWait(Throttled annotation, String description) {
        String text = annotation.maxWait().trim();
        if (text.isEmpty()) {
            return null;
        }
        Duration maxWait;
        try {
            maxWait = DurationStyle.detectAndParse(text);
        }
        catch (IllegalArgumentException ex) {
            throw invalid(description, "@Throttled maxWait '" + text + "' is not a duration",
                    "Use a duration such as 500ms, 5s, 1m or PT5S.");
        }
        if (maxWait.isNegative()) {
            throw invalid(description, "@Throttled maxWait '" + text + "' is negative",
                    "Use a duration such as 0s, 500ms or 5s.");
        }
        return maxWait;
    }

    private @Nullable Expression tenant(Throttled annotation, String description) {
        String text = annotation.tenant().trim();
        if (text.isEmpty()) {
            return null;
        }
        try {
            return this.parser.parseExpression(text);
        }
        catch (ParseException ex) {
            throw invalid(description,
                    "@Throttled tenant '" + text + "' is not a valid SpEL expression (" + ex.getSimpleMessage() + ")",
                    "Use an expression over the method's parameters, such as #request.tenantId or #p0.");
        }
    }

    private static Method fallbackMethod(Method method, Class<?> userClass, String name, String description) {
        List<Method> named = new ArrayList<>();
        ReflectionUtils.doWithMethods(userClass, named::add,
                (candidate) -> candidate.getName().equals(name) && !candidate.isBridge() && !candidate.isSynthetic());
        Class<?>[] parameters = method.getParameterTypes();
        String expected = signature(name, parameters) + " or " + signature(name, append(parameters, Throwable.class));
        if (named.isEmpty()) {
            throw invalid(description,
                    "@Throttled fallbackMethod '" + name + "' does not exist on " + userClass.getName(), "Add a method "
                            + expected + " returning " + method.getReturnType().getSimpleName() + ", or fix the name.");
        }
        Method match = null;
        for (Method candidate : named) {
            Class<?>[] types = candidate.getParameterTypes();
            if (Arrays.equals(types, parameters) && match == null) {
                match = candidate;
            }
            if (types.length == parameters.length + 1
                    && Arrays.equals(Arrays.copyOf(types, parameters.length), parameters)
                    && types[parameters.length].isAssignableFrom(LlmThrottleException.class)) {
                match = candidate;
            }
        }
        if (match == null) {
            String found = named.stream()
                .map((candidate) -> signature(name, candidate.getParameterTypes()))
                .collect(Collectors.joining(", "));
            throw invalid(description, "@Throttled fallbackMethod must take the method's parameters, optionally "
                    + "followed by a Throwable, but found " + found, "Declare " + expected + ".");
        }
        ResolvableType returnType = ResolvableType.forMethodReturnType(method, userClass);
        ResolvableType fallbackReturnType = ResolvableType.forMethodReturnType(match, userClass);
        if (!returnType.isAssignableFrom(fallbackReturnType)) {
            throw invalid(description,
                    "@Throttled fallbackMethod " + signature(name, match.getParameterTypes()) + " returns "
                            + fallbackReturnType + " but the method returns " + returnType,
                    "Make the fallback method return " + returnType + ".");
        }
        return match;
    }

    private static Class<?>[] append(Class<?>[] types, Class<?> last) {
        Class<?>[] all = Arrays.copyOf(types, types.length + 1);
        all[types.length] = last;
        return all;
    }

    private static String signature(String name, Class<?>[] parameters) {
        return name + "(" + Arrays.stream(parameters).map(Class::getSimpleName).collect(Collectors.joining(", ")) + ")";
    }

    /**
     * The method as messages name it: {@code com.example.Answers.answer(Request)}.
     * @param method the method
     * @param userClass the bean class
     * @return the description
     */
    static String describe(Method method, Class<?> userClass) {
        return userClass.getName() + "." + signature(method.getName(), method.getParameterTypes());
    }

    private static InvalidThrottleConfigurationException invalid(String description, String reason, String action) {
        return new InvalidThrottleConfigurationException(description, null, reason, action);
    }

    /**
     * A cache entry: the method's routing, or none for a method that is not throttled.
     */
    private record Resolved(@Nullable ThrottledMethod method) {

    }

}
