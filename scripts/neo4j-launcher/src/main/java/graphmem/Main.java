package graphmem;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;

/**
 * Test-only in-process Neo4j 5 (community) for graphmem's test suite.
 * Usage: Main WORKDIR BOLT_PORT HTTP_PORT [PASSWORD] [persist]
 * Binds Bolt and HTTP to 127.0.0.1. With PASSWORD, auth is on for user neo4j;
 * without it, auth is disabled. The data is ephemeral (deleted on shutdown), except with
 * "persist": then an embedded DBMS keeps its store in WORKDIR across restarts (Bolt only, no auth),
 * which fault tests use to kill and restart a graph store without losing it.
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
        if (args.length > 4 && args[4].equals("persist")) {
            persistent(workDir, Integer.parseInt(args[1]));
            return;
        }
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

    /** Bolt only, auth disabled: for fault tests that kill and restart the graph store. */
    private static void persistent(Path home, int boltPort) throws Exception {
        SocketAddress bolt = new SocketAddress("127.0.0.1", boltPort);
        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, bolt)
                .setConfig(BoltConnector.advertised_address, bolt)
                .setConfig(GraphDatabaseSettings.auth_enabled, false)
                .build();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            dbms.shutdown();
            stopped.countDown();
        }));
        System.out.println("READY bolt=bolt://127.0.0.1:" + boltPort + " persistent");
        System.out.flush();
        stopped.await();
    }
}
