package io.github.llmthrottle;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;

import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.langchain4j.LangChain4jThrottling;
import io.github.llmthrottle.okhttp.OkHttpThrottlingInterceptor;
import io.github.llmthrottle.sdk.AnthropicSdkThrottling;
import io.github.llmthrottle.store.redis.RedisBucketStore;
import io.github.llmthrottle.webclient.ThrottlingClientHttpConnector;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the core (the call pipeline in client, and limit, quota, store, retry, routing,
 * provider, time, observation) free of Spring Boot and Spring Web, and of meters
 * (Micrometer's Observation API only), the packages free of cycles, the wiring in the
 * {@code autoconfigure} packages (the core's, and each integration module's) where
 * nothing else depends on it, and the auto-configuration classes shaped like Spring
 * Boot's own (its build checks the same rules). Here, in the sample application, because
 * it sees the main classes of every module.
 */
class ArchitectureTests {

    /**
     * The core packages: the call pipeline ({@code client}) and what it is made of. They
     * depend on neither Spring Boot nor Spring Web (HTTP types, RestClient), so that
     * every HTTP library is one adapter away. The {@code observation} package holds the
     * vocabulary of the pipeline's observations (contexts, conventions), so it is core
     * too.
     */
    private static final String[] CORE_PACKAGES = { "io.github.llmthrottle.client..", "io.github.llmthrottle.limit..",
            "io.github.llmthrottle.quota..", "io.github.llmthrottle.store", "io.github.llmthrottle.retry..",
            "io.github.llmthrottle.routing..", "io.github.llmthrottle.provider..", "io.github.llmthrottle.time..",
            "io.github.llmthrottle.observation.." };

    /**
     * The wiring: the core auto-configuration's package and each integration module's
     * {@code autoconfigure} package.
     */
    private static final String AUTO_CONFIGURATION = "io.github.llmthrottle..autoconfigure..";

    /**
     * What the core is built upon by: adapters of HTTP libraries, integrations, wiring.
     */
    private static final String[] ABOVE_THE_CORE = { "io.github.llmthrottle.autoconfigure..",
            "io.github.llmthrottle.store.redis..", "io.github.llmthrottle.restclient..",
            "io.github.llmthrottle.annotation..", "io.github.llmthrottle.actuate..", "io.github.llmthrottle.metrics..",
            "io.github.llmthrottle.okhttp..", "io.github.llmthrottle.springai..", "io.github.llmthrottle.sdk..",
            "io.github.llmthrottle.langchain4j..", "io.github.llmthrottle.webclient.." };

    /**
     * The main classes of the library's modules: the core, the Redis stores, the
     * integrations and the auto-configuration (not their tests, not the testkit's
     * classes).
     */
    private static final List<URL> MODULES = List.of(location(LlmThrottleException.class),
            location(RedisBucketStore.class), location(OkHttpThrottlingInterceptor.class),
            location(AnthropicSdkThrottling.class), location(LangChain4jThrottling.class),
            location(ThrottlingClientHttpConnector.class), location(LlmThrottleAutoConfiguration.class));

    private static final JavaClasses CLASSES = new ClassFileImporter().importUrls(MODULES);

    private static final String IMPORTS = "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports";

    private static URL location(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }

    @Test
    void corePackagesDependOnNeitherSpringBootNorSpringWeb() {
        noClasses().that()
            .resideInAnyPackage(CORE_PACKAGES)
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("org.springframework.boot..", "org.springframework.http..", "org.springframework.web..")
            .check(CLASSES);
    }

    /**
     * The core reports through Micrometer's Observation API, which every Spring
     * application has (spring-context depends on it) and which costs nothing when nobody
     * listens; meters (micrometer-core, optional) and tracers are for the layers above.
     */
    @Test
    void coreObservesThroughTheObservationApiOnly() {
        noClasses().that()
            .resideInAnyPackage(CORE_PACKAGES)
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("io.micrometer.core..", "io.micrometer.tracing..")
            .check(CLASSES);
    }

    @Test
    void coreDoesNotDependOnAdaptersIntegrationsOrWiring() {
        noClasses().that()
            .resideInAnyPackage(CORE_PACKAGES)
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(ABOVE_THE_CORE)
            .check(CLASSES);
    }

    @Test
    void partsOfThePipelineDoNotDependOnThePipeline() {
        noClasses().that()
            .resideInAnyPackage("io.github.llmthrottle.limit..", "io.github.llmthrottle.quota..",
                    "io.github.llmthrottle.store", "io.github.llmthrottle.retry..", "io.github.llmthrottle.routing..",
                    "io.github.llmthrottle.provider..", "io.github.llmthrottle.time..",
                    "io.github.llmthrottle.observation..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("io.github.llmthrottle.client..")
            .check(CLASSES);
    }

    /**
     * The caller of a call (priority, tenant, max-wait) comes with its request, read once
     * by the adapter where the request entered it: the core neither reads nor sets the
     * thread's {@link ThrottleContext}, so a call is the same on whatever thread it runs.
     */
    @Test
    void coreReadsNoThreadLocalContext() {
        noClasses().that()
            .resideInAnyPackage(CORE_PACKAGES)
            .should()
            .callMethod(ThrottleContext.class, "current")
            .orShould()
            .callMethod(ThrottleContext.class, "currentModel")
            .orShould()
            .callMethod(ThrottleContext.class, "currentClient")
            .orShould()
            .callMethod(ThrottleContext.class, "open", ThrottleContext.class)
            .orShould()
            .dependOnClassesThat()
            .areAssignableTo(ThrottleContextAccessor.class)
            .check(CLASSES);
    }

    @Test
    void userFacingTypesDoNotDependOnSpring() {
        noClasses().that()
            .resideInAPackage("io.github.llmthrottle")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("org.springframework..")
            .check(CLASSES);
    }

    @Test
    void retriesRunOnSpringFrameworksCoreRetryNotOnSpringRetry() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("org.springframework.retry..").check(CLASSES);
    }

    @Test
    void packagesAreFreeOfCycles() {
        slices().matching("io.github.llmthrottle.(**)").should().beFreeOfCycles().check(CLASSES);
    }

    @Test
    void nothingOutsideTheAutoConfigurationDependsOnIt() {
        noClasses().that()
            .resideOutsideOfPackage(AUTO_CONFIGURATION)
            .should()
            .dependOnClassesThat()
            .resideInAPackage(AUTO_CONFIGURATION)
            .check(CLASSES);
    }

    @Test
    void autoConfigurationClassesArePublicFinalAndAnnotatedWithAutoConfiguration() {
        classes().that()
            .resideInAPackage(AUTO_CONFIGURATION)
            .and()
            .haveSimpleNameEndingWith("AutoConfiguration")
            .should()
            .beAnnotatedWith(AutoConfiguration.class)
            .andShould()
            .bePublic()
            .andShould()
            .haveModifier(JavaModifier.FINAL)
            .check(CLASSES);
        classes().that()
            .areAnnotatedWith(AutoConfiguration.class)
            .should()
            .haveSimpleNameEndingWith("AutoConfiguration")
            .andShould()
            .resideInAPackage(AUTO_CONFIGURATION)
            .check(CLASSES);
    }

    /**
     * Each module lists exactly its own auto-configurations in its
     * {@code AutoConfiguration.imports}, as Spring Boot's modules do: one left out would
     * never run, one listed by another module would be looked for without its module.
     */
    @Test
    void eachModuleListsExactlyItsOwnAutoConfigurations() throws IOException {
        Set<String> listing = new TreeSet<>();
        for (URL module : MODULES) {
            try (URLClassLoader classes = new URLClassLoader(new URL[] { module }, null)) {
                Set<String> declared = new TreeSet<>();
                for (JavaClass type : CLASSES) {
                    if (type.isAnnotatedWith(AutoConfiguration.class)
                            && classes.findResource(type.getName().replace('.', '/') + ".class") != null) {
                        declared.add(type.getName());
                    }
                }
                Set<String> listed = listed(classes);
                assertThat(listed).as("auto-configurations listed by %s", module).isEqualTo(declared);
                if (!listed.isEmpty()) {
                    listing.add(module.toString());
                }
            }
        }
        assertThat(listing).as("modules with auto-configurations").hasSize(6);
    }

    private static Set<String> listed(URLClassLoader module) throws IOException {
        Set<String> listed = new TreeSet<>();
        URL imports = module.findResource(IMPORTS);
        if (imports != null) {
            try (InputStream in = imports.openStream()) {
                new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .map(String::strip)
                    .filter((line) -> !line.isEmpty() && !line.startsWith("#"))
                    .forEach(listed::add);
            }
        }
        return listed;
    }

    @Test
    void beanMethodsAreNotPublic() {
        methods().that().areAnnotatedWith(Bean.class).should().notBePublic().check(CLASSES);
    }

}
