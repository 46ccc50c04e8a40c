// SPDX-License-Identifier: MIT
// A minimal ERC-20 for the local devnet's test USDT and USDC (compiled by
// infra/devnet/compile.ts with the solc-js version pinned in package.json; the bytecode is
// committed in TestToken.json and a test recompiles it). Mainnet USDT's transfer returns
// nothing; the watcher reads Transfer logs only, so the difference does not matter to it.
pragma solidity ^0.8.20;

contract TestToken {
    string public name;
    string public symbol;
    uint8 public immutable decimals;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(string memory name_, string memory symbol_, uint8 decimals_, uint256 supply) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        totalSupply = supply;
        balanceOf[msg.sender] = supply;
        emit Transfer(address(0), msg.sender, supply);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _move(msg.sender, to, value);
        return true;
    }

    /// Several transfers in one transaction (one Transfer log each): tests use it to put two
    /// payments into one transaction, told apart by their log index.
    function transferMany(address[] calldata to, uint256[] calldata values) external returns (bool) {
        require(to.length == values.length, "lengths differ");
        for (uint256 i = 0; i < to.length; i++) _move(msg.sender, to[i], values[i]);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        require(allowed >= value, "allowance");
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - value;
        _move(from, to, value);
        return true;
    }

    function _move(address from, address to, uint256 value) private {
        require(balanceOf[from] >= value, "balance");
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
