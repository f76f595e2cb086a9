package graphmem;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;

/**
 * Test-only in-process Neo4j 5 (community) for graphmem's test suite.
 * Usage: Main WORKDIR BOLT_PORT HTTP_PORT [PASSWORD]
 * Binds Bolt and HTTP to 127.0.0.1. With PASSWORD, auth is on for user neo4j;
 * without it, auth is disabled. The data is ephemeral (deleted on shutdown).
 * Prints one "READY ..." line once started, then blocks until killed.
 */
public final class Main {
    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: Main WORKDIR BOLT_PORT HTTP_PORT [PASSWORD]");
            System.exit(2);
        }
        Path workDir = Files.createDirectories(Path.of(args[0]).toAbsolutePath());
        String password = args.length > 3 ? args[3] : "";
        SocketAddress bolt = new SocketAddress("127.0.0.1", Integer.parseInt(args[1]));
        SocketAddress http = new SocketAddress("127.0.0.1", Integer.parseInt(args[2]));
        // withWorkingDir first: it resets the connector and auth settings.
        // Advertised addresses matter for neo4j:// (routing) URLs.
        Neo4j neo4j = Neo4jBuilders.newInProcessBuilder()
                .withWorkingDir(workDir)
                .withConfig(BoltConnector.listen_address, bolt)
                .withConfig(BoltConnector.advertised_address, bolt)
                .withConfig(HttpConnector.listen_address, http)
                .withConfig(HttpConnector.advertised_address, http)
                .withConfig(GraphDatabaseSettings.auth_enabled, !password.isEmpty())
                .build();
        if (!password.isEmpty()) {
            neo4j.databaseManagementService().database("system").executeTransactionally(
                    "ALTER USER neo4j SET PASSWORD $pw CHANGE NOT REQUIRED", java.util.Map.of("pw", password));
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("STOPPING");
            neo4j.close();
            stopped.countDown();
        }));
        System.out.println("READY bolt=" + neo4j.boltURI() + " http=" + neo4j.httpURI()
                + " auth=" + (password.isEmpty() ? "disabled" : "neo4j"));
        System.out.flush();
        stopped.await();
    }
}
