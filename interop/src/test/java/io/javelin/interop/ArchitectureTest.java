package io.javelin.interop;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.Architectures;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module layering, enforced: objectstore → encoding → {tx, index} → engine-async → jmh.
 * Maven already forbids cycles between modules; these rules also stop a lower layer from
 * reaching up through reflection-free imports that Maven cannot see (e.g. shaded or test code).
 */
class ArchitectureTest {

    private static JavaClasses production;

    @BeforeAll
    static void importClasses() {
        production = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("-tests.jar")) // other modules' test-jars
                .importPackages("io.javelin");
    }

    /** The layering rule for a tree rooted at {@code root} (our code, or a test fixture tree). */
    static ArchRule layering(String root) {
        return Architectures.layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("objectstore").definedBy(root + ".objectstore..")
                .layer("encoding").definedBy(root + ".encoding..")
                .layer("tx").definedBy(root + ".tx..")
                .layer("index").definedBy(root + ".index..")
                .layer("engine").definedBy(root + ".engine..", root + ".cli..")
                .layer("jmh").definedBy(root + ".jmh..")
                .whereLayer("jmh").mayNotBeAccessedByAnyLayer()
                .whereLayer("engine").mayOnlyBeAccessedByLayers("jmh")
                .whereLayer("tx").mayOnlyBeAccessedByLayers("engine", "jmh")
                .whereLayer("index").mayOnlyBeAccessedByLayers("engine", "jmh")
                .whereLayer("encoding").mayOnlyBeAccessedByLayers("tx", "index", "engine", "jmh")
                .whereLayer("objectstore").mayOnlyBeAccessedByLayers("encoding", "tx", "index", "engine", "jmh")
                .withOptionalLayers(true);
    }

    @Test
    void modulesRespectTheLayering() {
        assertThat(production.size()).as("classes imported").isGreaterThan(5);
        layering("io.javelin").check(production);
    }

    @Test
    void aLayeringViolationIsDetected() {
        JavaClasses fixture = new ClassFileImporter().importPackages("io.javelin.archfixture");
        assertThat(fixture.size()).isEqualTo(3);
        assertThatThrownBy(() -> layering("io.javelin.archfixture").check(fixture))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("BadStore")
                .hasMessageContaining("Codec");
    }

    @Test
    void kernelsStayFreeOfReactor() {
        noClasses().that().resideInAPackage("io.javelin..kernel..")
                .should().dependOnClassesThat().resideInAnyPackage("reactor..", "org.reactivestreams..")
                .allowEmptyShould(false)
                .check(production);
    }

    /**
     * Library code takes its settings as values (options records): only the CLI, benchmarks and test code read
     * system properties. Still allowed, until caches move into a session object (#27): the three below.
     */
    static ArchRule noSystemProperties(String root, java.util.Set<String> allowed) {
        return noClasses().that().resideInAnyPackage(root + ".objectstore..", root + ".encoding..", root + ".tx..",
                        root + ".index..", root + ".engine..")
                .and(new com.tngtech.archunit.base.DescribedPredicate<com.tngtech.archunit.core.domain.JavaClass>("not allowed") {
                    @Override
                    public boolean test(com.tngtech.archunit.core.domain.JavaClass c) {
                        return !allowed.contains(c.getName());
                    }
                })
                .should().callMethod(System.class, "getProperty", String.class)
                .orShould().callMethod(System.class, "getProperty", String.class, String.class)
                .orShould().callMethod(Boolean.class, "getBoolean", String.class)
                .orShould().callMethod(Integer.class, "getInteger", String.class)
                .orShould().callMethod(Integer.class, "getInteger", String.class, int.class)
                .orShould().callMethod(Long.class, "getLong", String.class)
                .orShould().callMethod(Long.class, "getLong", String.class, long.class)
                .allowEmptyShould(true);
    }

    @Test
    void libraryCodeReadsNoSystemProperties() {
        noSystemProperties("io.javelin", java.util.Set.of("io.javelin.engine.OpenFiles", "io.javelin.engine.index.IndexCaches",
                "io.javelin.tx.tree.LeafCache", "io.javelin.tx.tree.LanceLeafCodec")).check(production);
    }

    @Test
    void aSystemPropertyReadIsDetected() {
        JavaClasses fixture = new ClassFileImporter().importPackages("io.javelin.archfixture");
        assertThatThrownBy(() -> noSystemProperties("io.javelin.archfixture", java.util.Set.of()).check(fixture))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("TunedByProperty");
    }

    @Test
    void noOneUsesSunMiscUnsafe() {
        noClasses().should().dependOnClassesThat().haveFullyQualifiedName("sun.misc.Unsafe").check(production);
    }
}
