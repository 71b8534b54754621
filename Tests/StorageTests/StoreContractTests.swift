import TestSupport
import Testing

@Suite("Store contract")
struct StoreContractTests {
    @Test(arguments: StoreDriver.allCases, StoreContract.checks)
    func contract(driver: StoreDriver, check: StoreContractCheck) throws {
        try driver.withFactory(check.run)
    }
}
