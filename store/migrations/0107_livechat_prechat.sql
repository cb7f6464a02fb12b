-- A live chat owner may make the start form's e-mail and phone optional or hidden (the widget's
-- `prechat` setting; the spec's default keeps all three required): a visitor may have neither.
ALTER TABLE livechat_visitors ALTER COLUMN email DROP NOT NULL;
ALTER TABLE livechat_visitors ALTER COLUMN phone DROP NOT NULL;
