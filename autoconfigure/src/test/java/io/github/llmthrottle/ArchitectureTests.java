package io.github.llmthrottle;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * Keeps the core (limit, retry, routing, provider, time) free of Spring Boot, and the
 * auto-configuration free of logic that belongs in the core.
 */
class ArchitectureTests {

    private static final JavaClasses CLASSES = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.github.llmthrottle");

    @Test
    void coreDoesNotDependOnSpringBoot() {
        noClasses().that()
            .resideInAnyPackage("io.github.llmthrottle.limit..", "io.github.llmthrottle.retry..",
                    "io.github.llmthrottle.routing..", "io.github.llmthrottle.provider..",
                    "io.github.llmthrottle.time..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("org.springframework.boot..")
            .check(CLASSES);
    }

    @Test
    void coreDoesNotDependOnTheWiring() {
        noClasses().that()
            .resideInAnyPackage("io.github.llmthrottle.limit..", "io.github.llmthrottle.retry..",
                    "io.github.llmthrottle.routing..", "io.github.llmthrottle.provider..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("io.github.llmthrottle.autoconfigure..", "io.github.llmthrottle.client..",
                    "io.github.llmthrottle.actuate..", "io.github.llmthrottle.metrics..")
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

}
