create table ledger (id bigint auto_increment primary key, entry varchar(100) not null);
